import HTTPServer

/// `GET /api/images` and `GET /api/images/{id}`.
extension TilescopeApp {
    func imageList(_ request: Request) throws -> Response {
        JSON.response(["images": library.all.map(json)])
    }

    func image(_ id: String, _ request: Request) throws -> Response {
        JSON.response(json(try record(id)))
    }

    /// The gallery's images in display order.
    func galleryOrder(_ request: Request) throws -> [ImageRecord] {
        library.all
    }

    func json(_ record: ImageRecord) -> ImageJSON {
        let text = titles(record)
        return ImageJSON(record, title: text.title, caption: text.caption)
    }
}
