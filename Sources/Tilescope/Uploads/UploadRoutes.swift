import HTTPServer

/// `POST /api/images` (an upload, streamed to disk) and `DELETE /api/images/{id}`, both with the admin token.
extension TilescopeApp {
    /// Uploads take their body as a stream; every other request has it buffered as usual.
    public func bodyHandling(for request: Request) -> BodyHandling {
        guard request.method == "POST", request.pathSegments == ["api", "images"] else { return .buffer }
        do {
            return .stream(try uploads.begin(request, signedInAdmin: try signedInAdmin(request)) { [self] in decorate($0) })
        } catch {
            return .refuse(decorate(APIError(error).response))
        }
    }

    /// The server's own 413s get CORS headers too, so a cross-origin upload can read why it failed.
    public func decorate(serverResponse: Response) -> Response {
        decorate(serverResponse)
    }

    func deleteImage(_ id: String, _ request: Request) throws -> Reply {
        try uploads.authorize(request, signedInAdmin: try signedInAdmin(request))
        let uploads = self.uploads
        return later { try uploads.delete(id, request) }
    }
}
