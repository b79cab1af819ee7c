import HTTPServer

/// Deep Zoom: the descriptor, the tiles and the preview, straight from the pyramid files.
extension TilescopeApp {
    func descriptor(_ id: String, _ request: Request) throws -> Response {
        let (record, _) = try readyImage(id)
        if request.query["v"] == nil { return try descriptorNamingVersionedTiles(record, request) }
        return try pyramidFile(store.descriptorPath(id: id, version: record.version), type: "application/xml",
                               etag: "\"\(record.version)-dzi\"", record: record, request: request)
    }

    func tile(_ id: String, level: Int, column: Int, row: Int, _ request: Request) throws -> Response {
        let (record, manifest) = try readyImage(id)
        let pyramid = manifest.pyramid
        guard pyramid.contains(level: level) else {
            throw APIError.badRequest("level \(level) is above this image's maximum level \(pyramid.maxLevel)")
        }
        guard pyramid.contains(level: level, column: column, row: row) else {
            let grid = pyramid.tileGrid(ofLevel: level)
            throw APIError.badRequest(
                "tile \(column)_\(row) is outside level \(level), which has \(grid.columns) columns and \(grid.rows) rows")
        }
        let path = store.tilePath(id: id, version: record.version, level: level, column: column, row: row)
        return try pyramidFile(path, type: "image/jpeg", etag: "\"\(record.version)-\(level)-\(column)-\(row)\"",
                               record: record, request: request)
    }

    func preview(_ id: String, _ request: Request) throws -> Response {
        let (record, _) = try readyImage(id)
        return try pyramidFile(store.previewPath(id: id, version: record.version), type: "image/jpeg",
                               etag: "\"\(record.version)-preview\"", record: record, request: request)
    }

    private func pyramidFile(_ path: String, type: String, etag: String, record: ImageRecord,
                             request: Request) throws -> Response {
        let cacheControl = HTTPCaching.cacheControl(for: request, currentVersion: record.version)
        guard let response = HTTPCaching.file(at: path, contentType: type, etag: etag,
                                              cacheControl: cacheControl, request: request,
                                              descriptors: pyramidFiles) else {
            throw APIError.notFound("the pyramid of \(record.id) has no such file")
        }
        return response
    }
}
