import HTTPServer
import ScrollGeometry

/// `GET|POST /api/images/{id}/viewport` and `GET /api/gallery?page=N[&sort=...]`: the scroll-view
/// geometry of ScrollGeometry, over HTTP. Pure arithmetic, cheap enough for the poll threads.
extension TilescopeApp {
    func viewport(_ id: String, _ request: Request) throws -> Response {
        let (record, manifest) = try readyImage(id)
        let query: ViewportQuery
        do {
            query = request.method == "POST"
                ? try ViewportQuery.parse(json: request.body)
                : try ViewportQuery.parse(query: request.query)
        } catch {
            throw APIError(400, ViewportQueryError.code, error.message)
        }
        let answer = ViewportResponse(imageID: id, viewport: query.viewport(for: manifest.pyramid),
                                      urls: record.urls)
        return Response(status: 200, headers: [("Content-Type", "application/json; charset=utf-8"),
                                               ("Cache-Control", "no-store")], body: .buffer(answer.jsonBuffer()))
    }

    /// The endless carousel: page N modulo the count, with its neighbours.
    func gallery(_ request: Request) throws -> Response {
        let requested: Int
        if let text = request.query["page"] {
            guard let page = Int(text) else { throw APIError.badRequest("page must be an integer, not '\(text.prefix(40))'") }
            requested = page
        } else {
            requested = 0
        }
        let entries = try galleryOrder(request)
        guard let ring = PagingRing(page: requested, count: entries.count) else {
            throw APIError.notFound("the gallery is empty: add images to the images folder")
        }
        return JSON.response(GalleryPage(count: ring.count, page: ring.page, previous: entries[ring.previous].json,
                                         current: entries[ring.current].json, next: entries[ring.next].json))
    }
}

/// One turn of the carousel.
struct GalleryPage: Encodable {
    var count: Int
    var page: Int
    var previous: ImageJSON
    var current: ImageJSON
    var next: ImageJSON
}
