import Catalog
import HTTPServer

/// `PUT /api/images/{id}/rating`: rates an image and answers its JSON with the new rating.
extension TilescopeApp {
    func rate(_ id: String, _ request: Request) throws -> Reply {
        _ = try record(id)
        let rating = try RatingBody.parse(request.body)
        let gallery = self.galleryData
        let sync = uploads.sync
        // The write waits for SQLite's fsync: on a worker, never on a poll thread. It runs under the
        // library's lock, so a DELETE of the same image cannot slip between the check and the write.
        return later {
            let written = try sync.whilePresent(id) { record in
                try gallery.ratings.setRating(rating, for: id)
                return record
            }
            guard let record = written else { throw APIError.notFound("image \(id) was just removed") }
            // This request's rating, even if another has replaced it since: the answer says what this write did.
            return JSON.response(gallery.entry(record, rating: rating).json)
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
