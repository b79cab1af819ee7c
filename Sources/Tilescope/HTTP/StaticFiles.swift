import Foundation
import HTTPServer

/// The browser client from the public folder. Only plain names map to files: no empty,
/// dot-led or separator-bearing segment ever reaches the file system.
extension TilescopeApp {
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "svg": "image/svg+xml", "png": "image/png",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "ico": "image/x-icon",
        "txt": "text/plain; charset=utf-8", "map": "application/json", "woff2": "font/woff2",
    ]

    func staticFile(_ segments: [String], _ request: Request) throws -> Response {
        let path = segments.isEmpty || segments == [""] ? ["index.html"] : segments
        guard path.allSatisfy(Self.isPlainName) else { throw APIError.notFound("no such file") }
        let fileExtension = path.last!.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard let type = Self.contentTypes[fileExtension] else { throw APIError.notFound("no such file") }
        let full = ([publicFolder] + path).joined(separator: "/")
        guard let etag = Self.etag(ofFile: full) else {
            // The modules in one answer, made from the files (a real file of that name would be served instead).
            if path == ModulePack.path, let pack = try Self.modulePack.answer(publicFolder: publicFolder, request: request) {
                return pack
            }
            throw APIError.notFound("no such file: /\(path.joined(separator: "/"))")
        }
        let compressible = Self.compressible.contains(fileExtension)
        if compressible, DeflatedFiles.accepted(by: request) {
            let tag = Self.deflatedTag(etag.text)
            if let answer = Self.textAnswer(type: type, tag: tag, deflated: true, request: request,
                                            bytes: { Self.deflated.bytes(at: full, etag: tag) }) {
                return answer
            }
        }
        guard var response = HTTPCaching.file(at: full, contentType: type, etag: etag.text,
                                              cacheControl: HTTPCaching.revalidate, request: request) else {
            throw APIError.notFound("no such file")
        }
        if compressible { response.setHeader("Vary", "Accept-Encoding") }
        return response
    }

    /// Text the client is made of, sent compressed to a browser that takes it (`DeflatedFiles`).
    static let compressible: Set<String> = ["html", "js", "mjs", "css", "json", "svg", "txt", "map"]
    static let deflated = DeflatedFiles()
    static let modulePack = ModulePack()

    /// The ETag of a text's deflated bytes, its own: a cache must not answer a request that does not take deflate
    /// with these bytes.
    static func deflatedTag(_ tag: String) -> String { String(tag.dropLast()) + "-deflate\"" }

    /// A text of the client from memory (`bytes`, deflated or not) under `tag`: a 304 for the copy the client holds,
    /// else the bytes; nil if `bytes` has none (the caller then sends the file as it is).
    static func textAnswer(type: String, tag: String, deflated: Bool, request: Request,
                           bytes: () -> SharedBytes?) -> Response? {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", type), ("ETag", tag), ("Cache-Control", HTTPCaching.revalidate), ("Vary", "Accept-Encoding"),
        ]
        if HTTPCaching.notModified(request, etag: tag) { return Response(status: 304, headers: headers) }
        guard let body = bytes() else { return nil }
        if deflated { headers.append(("Content-Encoding", "deflate")) }
        return Response(status: 200, headers: headers, body: .shared(body))
    }

    static func isPlainName(_ segment: String) -> Bool {
        !segment.isEmpty && !segment.hasPrefix(".") && segment.utf8.count <= 255
            && !segment.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") })
    }

    /// The ETag of a regular file by its size and modification time; nil for anything else.
    private static func etag(ofFile path: String) -> DocumentETag? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return DocumentETag(clientFileOfSize: Int(info.st_size), modified: info.st_mtim)
    }
}
