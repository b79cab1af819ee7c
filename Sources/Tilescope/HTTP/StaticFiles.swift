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
        guard let etag = Self.etag(ofFile: full) else { throw APIError.notFound("no such file: /\(path.joined(separator: "/"))") }
        guard let response = HTTPCaching.file(at: full, contentType: type, etag: etag.text,
                                              cacheControl: HTTPCaching.revalidate, request: request) else {
            throw APIError.notFound("no such file")
        }
        return response
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
