import HTTPServer

/// `GET /openapi.json`: the contract of this API (docs/openapi.yaml, compiled in as JSON), so that
/// clients and test tools read the contract of the very server they talk to.
extension TilescopeApp {
    /// The bytes and their validator, made once: the document is fixed for the life of the binary.
    private static let openAPIBody = Array(OpenAPIDocument.json.utf8)
    private static let openAPIETag = "\"openapi-\(fnv1a(openAPIBody))\""

    func openAPI(_ request: Request) -> Response {
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("ETag", Self.openAPIETag), ("Cache-Control", HTTPCaching.revalidate),
        ]
        if HTTPCaching.notModified(request, etag: Self.openAPIETag) { return Response(status: 304, headers: headers) }
        return Response(status: 200, headers: headers, body: .bytes(Self.openAPIBody))
    }
}
