import Foundation
import HTTPServer

/// Validators and cache lifetimes.
///
/// Pyramid URLs carry the source version (`?v=`). A request whose `v` names the current
/// version may be cached for a year as immutable: a new source version means new URLs.
/// Without it, or with an outdated one, caches must revalidate every time (`no-cache`)
/// with the strong ETag, which itself contains the version, so a stale tile is never
/// taken for a current one.
public enum HTTPCaching {
    public static let immutable = "public, max-age=31536000, immutable"
    public static let revalidate = "public, no-cache"
    /// Headers a file response ends up with (its own three, those `TilescopeApp.decorate` adds, Server-Timing).
    static let headersPerResponse = 10

    public static func cacheControl(for request: Request, currentVersion: String) -> String {
        request.query["v"] == currentVersion ? immutable : revalidate
    }

    /// True if the client's `If-None-Match` already names `etag` (or is `*`).
    public static func notModified(_ request: Request, etag: String) -> Bool {
        guard let header = request.header("if-none-match") else { return false }
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }  // weak comparison, as RFC 9110 asks for If-None-Match
            if tag == etag { return true }
        }
        return false
    }

    /// A file response with validators, or a 304 when the client's copy is current.
    /// (For HEAD, libmicrohttpd sends the length and no body.)
    /// `memory` holds the bytes of, and `descriptors` keeps open, files that never change in place
    /// (pyramid files); a file too large for `memory` is sent from its descriptor.
    public static func file(
        at path: String, contentType: String, etag: String, cacheControl: String, request: Request,
        memory: FileBytesCache? = nil, descriptors: OpenFileCache? = nil
    ) -> Response? {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", contentType), ("ETag", etag), ("Cache-Control", cacheControl),
        ]
        headers.reserveCapacity(Self.headersPerResponse)  // room for CORS and Server-Timing: no regrowth
        if notModified(request, etag: etag) { return Response(status: 304, headers: headers) }
        if let memory, let bytes = memory.bytes(at: path) {
            return Response(status: 200, headers: headers, body: .shared(bytes))
        }
        if let descriptors {
            guard let (descriptor, size) = descriptors.open(path) else { return nil }
            return Response(status: 200, headers: headers, body: .file(descriptor: descriptor, size: size))
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        return Response(status: 200, headers: headers, body: .file(descriptor: descriptor, size: Int(info.st_size)))
    }
}
