import Catalog
import HTTPServer

/// `GET /api/images[?sort=name|rating|added]` and `GET /api/images/{id}`.
extension TilescopeApp {
    func imageList(_ request: Request) throws -> Response {
        guard let sort = GallerySort(query: request.query["sort"]) else {
            throw APIError.badRequest("unknown sort '\(request.query["sort"]?.prefix(40) ?? "")': use one of \(GallerySort.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return JSON.response(["images": try gallery.entries(sortedBy: sort).map(\.json)])
    }

    func image(_ id: String, _ request: Request) throws -> Response {
        JSON.response(try json(try record(id)))
    }

    /// The image's JSON with its caption and rating.
    func json(_ record: ImageRecord) throws -> ImageJSON {
        try gallery.entry(record).json
    }
}
