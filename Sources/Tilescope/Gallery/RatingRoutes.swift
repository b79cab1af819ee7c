import Catalog
import HTTPServer

/// `PUT /api/images/{id}/rating`: sets the asking viewer's own rating of an image and answers the image's
/// JSON with their rating and everyone's average and count; `DELETE` withdraws it. A signed-in user's rating
/// is theirs (`SignedInUser.viewer`); an anonymous request without a valid viewer cookie is a new viewer, and
/// the answer to a PUT carries the Set-Cookie that makes it theirs.
extension TilescopeApp {
    func rate(_ id: String, _ request: Request) throws -> Reply {
        _ = try record(id)
        // Who may write, and the CSRF proof of a cookie-authenticated write; then the body: a malformed write is
        // a 400 whatever the budget and spends none of it (nothing is written); then the budget and the viewer.
        let user = try ratingWriter(request)
        let withdraw = request.method == "DELETE"
        let rating = withdraw ? nil : try RatingBody.parse(request.body)
        if withdraw {
            try viewers.spend(request)
            guard let viewer = user?.viewer ?? viewers.viewer(of: request) else {
                // No cookie, nobody signed in: this client has no rating to withdraw.
                return .now(JSON.response(try galleryData.entry(try record(id), viewer: nil).json.mounted(request.mountPath)))
            }
            return withdrawn(id, by: viewer, request)
        }
        let writer = try viewers.writer(of: request, user: user)
        let gallery = self.galleryData
        let sync = uploads.sync
        let mount = request.mountPath
        // The write waits for SQLite's fsync: on a worker, never on a poll thread. It runs under the
        // library's lock, so a DELETE of the same image cannot slip between the check and the write.
        return later {
            let written = try sync.whilePresent(id) { record in
                (record, try gallery.ratings.setRating(rating!, for: id, by: writer.viewer))
            }
            guard let (record, summary) = written else { throw APIError.notFound("image \(id) was just removed") }
            // This request's rating, even if the viewer has replaced it since: the answer says what this write did.
            var response = JSON.response(gallery.entry(record, rating: RatingSummary(own: rating, total: summary.total,
                                                                                     count: summary.count)).json.mounted(mount))
            if let cookie = writer.setCookie { response.setHeader("Set-Cookie", cookie) }
            return response
        }
    }

    /// Who writes: `--ratings` decides; a write authenticated by a session cookie or a proxy's header must carry
    /// its CSRF proof, and any browser write with a cookie must come from this server's own pages (`CSRFGuard`).
    private func ratingWriter(_ request: Request) throws -> SignedInUser? {
        let user = signedInUser(request)
        try viewers.authorize(request, user: user)
        if let user {
            try CSRFGuard.check(request, user: user, ownOrigin: ownOrigin(request), keys: viewers.keyring.current)
        } else if request.header("cookie") != nil {
            try CSRFGuard.checkOrigin(request, ownOrigin: ownOrigin(request))
        }
        return user
    }

    /// Removes `viewer`'s rating of the image and answers its JSON as it stands.
    private func withdrawn(_ id: String, by viewer: ViewerID, _ request: Request) -> Reply {
        let gallery = self.galleryData
        let sync = uploads.sync
        let mount = request.mountPath
        return later {
            let removed = try sync.whilePresent(id) { record in
                try gallery.ratings.removeRating(for: id, by: viewer)
                return record
            }
            guard let record = removed else { throw APIError.notFound("image \(id) was just removed") }
            return JSON.response(try gallery.entry(record, viewer: viewer).json.mounted(mount))
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
