import Catalog
import HTTPServer

/// `GET /api/images[?sort=name|rating|added]` and `GET /api/images/{id}`.
extension TilescopeApp {
    func imageList(_ request: Request) throws -> Response {
        JSON.response(["images": try galleryOrder(request).map(\.json)])
    }

    func image(_ id: String, _ request: Request) throws -> Response {
        JSON.response(try json(try record(id)))
    }

    /// The gallery's images in display order (`?sort=name|rating|added`, default name; 400 for
    /// another), with their captions and ratings: the image list and the paging carousel share it.
    func galleryOrder(_ request: Request) throws -> [GalleryEntry] {
        guard let sort = GallerySort(query: request.query["sort"]) else {
            throw APIError.badRequest("unknown sort '\(request.query["sort"]?.prefix(40) ?? "")': use one of \(GallerySort.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return try galleryData.entries(sortedBy: sort)
    }

    /// The image's JSON with its caption and rating.
    func json(_ record: ImageRecord) throws -> ImageJSON {
        try galleryData.entry(record).json
    }
}
