import HTTPServer

/// `GET /api/jobs/{id}`: how far an image's pyramid build has got.
extension TilescopeApp {
    func job(_ id: String, _ request: Request) throws -> Response {
        JSON.response(JobJSON(try record(id)))
    }
}
