import Catalog
import HTTPServer

/// `PUT /api/images/{id}/rating`: sets the asking viewer's own rating of an image and answers the image's
/// JSON with their rating and everyone's average and count. A request without a valid viewer cookie is a
/// new viewer: the answer carries the Set-Cookie that makes it theirs.
extension TilescopeApp {
    func rate(_ id: String, _ request: Request) throws -> Reply {
        _ = try record(id)
        // Who may write; then the body: a malformed write is a 400 whatever the budget and spends none of it
        // (nothing is written); then the client's budget and the viewer.
        try viewers.authorize(request)
        let rating = try RatingBody.parse(request.body)
        let writer = try viewers.writer(of: request)
        let gallery = self.galleryData
        let sync = uploads.sync
        let mount = request.mountPath
        // The write waits for SQLite's fsync: on a worker, never on a poll thread. It runs under the
        // library's lock, so a DELETE of the same image cannot slip between the check and the write.
        return later {
            let written = try sync.whilePresent(id) { record in
                (record, try gallery.ratings.setRating(rating, for: id, by: writer.viewer))
            }
            guard let (record, summary) = written else { throw APIError.notFound("image \(id) was just removed") }
            // This request's rating, even if the viewer has replaced it since: the answer says what this write did.
            var response = JSON.response(gallery.entry(record, rating: RatingSummary(own: rating, total: summary.total,
                                                                                     count: summary.count)).json.mounted(mount))
            if let cookie = writer.setCookie { response.setHeader("Set-Cookie", cookie) }
            return response
        }
    }

    /// Work for a worker thread whose errors become JSON error responses, as on the poll thread.
    func later(_ work: @escaping @Sendable () throws -> Response) -> Reply {
        .later {
            do {
                return try work()
            } catch {
                return APIError(error).response
            }
        }
    }
}
