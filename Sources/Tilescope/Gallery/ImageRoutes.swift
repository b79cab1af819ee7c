import Catalog
import HTTPServer

/// `GET /api/images[?sort=name|rating|added][&limit=N][&cursor=C]` and `GET /api/images/{id}`.
extension TilescopeApp {
    /// Pages hold at most this many images, and `limit` defaults to `defaultPageLimit` when only `cursor` is given.
    static let maxPageLimit = 1000
    static let defaultPageLimit = 100

    /// Without `limit` and `cursor`: every image (the answer before paging existed). With either: one
    /// page after the cursor, the total `count`, and `next` (the cursor of the following page, null at the end).
    func imageList(_ request: Request) throws -> Response {
        guard let page = try pageRequest(request) else {
            return JSON.response(["images": try galleryOrder(request, viewer: ratingViewer(request)).map(\.json)])
        }
        let order = try galleryData.order(sortedBy: page.sort)
        let start = page.after.map { order.index(after: $0.keys) } ?? 0
        let end = start + min(page.limit, order.count - start)
        let next = end < order.count && end > start ? GalleryCursor(sort: page.sort, after: order.keys[end - 1]).token : nil
        return JSON.response(ImagePage(images: try galleryData.entries(order.keys[start..<end], viewer: ratingViewer(request)).map(\.json),
                                       count: order.count, next: next))
    }

    func image(_ id: String, _ request: Request) throws -> Response {
        JSON.response(try galleryData.entry(try record(id), viewer: ratingViewer(request)).json.mounted(request.mountPath))
    }

    /// The gallery's images in display order (`?sort=name|rating|added`, default name; 400 for
    /// another), with their captions and ratings as `viewer` sees them (nil: averages only).
    func galleryOrder(_ request: Request, viewer: ViewerID?) throws -> [GalleryEntry] {
        try galleryData.entries(sortedBy: try gallerySort(request), viewer: viewer)
    }

    /// `?sort=`, default name; 400 naming the choices for another value.
    func gallerySort(_ request: Request) throws -> GallerySort {
        let text = try request.argument("sort")
        guard let sort = GallerySort(query: text) else {
            throw APIError.badRequest("unknown sort '\(text?.prefix(40) ?? "")': use one of \(GallerySort.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return sort
    }

    // MARK: - Internals

    /// `limit` (1...maxPageLimit) and `cursor`, checked; nil when the request asks for no paging.
    private func pageRequest(_ request: Request) throws -> (sort: GallerySort, limit: Int, after: GalleryCursor?)? {
        let limitText = try request.argument("limit")
        let cursorText = try request.argument("cursor")
        guard limitText != nil || cursorText != nil else { return nil }
        let sort = try gallerySort(request)
        var limit = Self.defaultPageLimit
        if let limitText {
            guard let value = Int(limitText), (1...Self.maxPageLimit).contains(value) else {
                throw APIError.badRequest("limit must be an integer from 1 to \(Self.maxPageLimit), not '\(limitText.prefix(40))'")
            }
            limit = value
        }
        let after = try cursorText.map { try GalleryCursor(token: $0, sort: sort) }
        return (sort, limit, after)
    }
}

/// One page of `GET /api/images?limit=N`.
struct ImagePage: Encodable {
    var images: [ImageJSON]
    var count: Int
    /// The cursor of the next page; null (always present) after the last one.
    var next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(images, forKey: .images)
        try container.encode(count, forKey: .count)
        try container.encode(next, forKey: .next)
    }

    enum CodingKeys: String, CodingKey { case images, count, next }
}
