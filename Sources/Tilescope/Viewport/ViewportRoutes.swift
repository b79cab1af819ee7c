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
                                      urls: record.urls.mounted(request.mountPath), listing: query.listing)
        return Response(status: 200, headers: [("Content-Type", "application/json; charset=utf-8"),
                                               ("Cache-Control", "no-store")], body: .buffer(answer.jsonBuffer()))
    }

    /// The endless carousel: page N modulo the count (or the page of `?image={id}`), with its neighbours.
    /// Only those three images are looked up, so any page of a large gallery costs the same.
    func gallery(_ request: Request) throws -> Response {
        var requested = 0
        if let text = try request.argument("page") {
            // One message for every defect, a number beyond Int's (`99999999999999999999`) included.
            guard let page = Int(text) else {
                throw APIError.badRequest("page must be an integer from \(Int.min) to \(Int.max), not '\(text.prefix(40))'")
            }
            requested = page
        }
        let order = try galleryData.order(sortedBy: try gallerySort(request))
        if let id = try request.argument("image") {
            guard let index = order.index(of: id) else { throw APIError.notFound("no image '\(id.prefix(80))'") }
            requested = index
        }
        guard let ring = PagingRing(page: requested, count: order.count) else {
            throw APIError.notFound("the gallery is empty: add images to the images folder")
        }
        let entries = try galleryData.entries([order.keys[ring.previous], order.keys[ring.current], order.keys[ring.next]][...],
                                               viewer: ratingViewer(request))
        guard entries.count == 3 else { throw APIError(503, "gallery_changed", "an image was removed while this page was made: ask again", headers: [("Retry-After", "1")]) }
        return JSON.response(GalleryPage(count: ring.count, page: ring.page, previous: entries[0].json,
                                         current: entries[1].json, next: entries[2].json))
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
