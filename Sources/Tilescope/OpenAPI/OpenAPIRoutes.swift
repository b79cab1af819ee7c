import Foundation
import HTTPServer

/// The OpenAPI 3.1 contract of the HTTP API: `openapi.json` beside this file, edited by hand and the
/// only copy there is. It is a resource of this target, which SwiftPM copies into
/// `Tilescope_Tilescope.resources/` beside the executable (the Dockerfile installs that folder beside
/// `/usr/local/bin/tilescope`); `Bundle.module` finds it there, or else in the build folder.
struct OpenAPIDocument: Sendable {
    /// The bytes sent, exactly as in the file.
    let body: [UInt8]
    let etag: String

    /// Read once, on first use: the document is fixed for the life of the binary.
    private static let shared = Result { try OpenAPIDocument(bundle: .module) }

    /// The document. `tilescope serve` calls this before it listens, so no server runs that cannot send
    /// its contract: without the resources folder, SwiftPM's `Bundle.module` stops the process with a
    /// fatal error naming both places it looked; a folder without the file is a `UsageError`.
    static func load() throws -> OpenAPIDocument { try shared.get() }

    init(bundle: Bundle) throws {
        guard let url = bundle.url(forResource: "openapi", withExtension: "json") else {
            throw UsageError("the API contract openapi.json is missing from \(bundle.bundlePath): "
                             + "copy Tilescope_Tilescope.resources/ from the build folder beside the executable")
        }
        body = Array(try Data(contentsOf: url))
        etag = DocumentETag(.openAPI, body: body).text
    }
}

/// `GET /openapi.json`: the contract of this API, sent as the file has it, so that clients and test
/// tools read the contract of the very server they talk to.
extension TilescopeApp {
    func openAPI(_ request: Request) throws -> Response {
        let document = try OpenAPIDocument.load()
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("ETag", document.etag), ("Cache-Control", HTTPCaching.revalidate),
        ]
        if HTTPCaching.notModified(request, etag: document.etag) { return Response(status: 304, headers: headers) }
        return Response(status: 200, headers: headers, body: .bytes(document.body))
    }
}
