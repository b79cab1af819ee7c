import Foundation
import HTTPServer
import Imaging

/// Deep Zoom: the descriptor, the tiles and the preview, straight from the pyramid files.
extension TilescopeApp {
    /// `/dzi/{id}.dzi`, and `?format=webp|avif` for the same pyramid with tiles in that format.
    func descriptor(_ id: String, _ request: Request) throws -> Reply {
        let format = try DeepZoomTileFormat.parse(query: request.query["format"])
        let (record, manifest) = try publishedImage(id)
        if format == .png && !manifest.isTransparent { throw DerivedFormats.noPNG(id) }
        if format != .jpeg {
            // Without `?v=`, the descriptor names the current version's tiles folder, as the JPEG one does
            // (`VersionedTiles`): its tiles are immutable, where those beside an unversioned URL are not.
            let namesFolder = request.query["v"] == nil
            let etag = TileETag(version: record.version, .descriptor(format: format, namesTilesFolder: namesFolder)).text
            var headers: [(name: String, value: String)] = [
                ("Content-Type", "application/xml"), ("ETag", etag),
                ("Cache-Control", HTTPCaching.cacheControl(for: request, currentVersion: record.version)),
            ]
            if namesFolder { headers.append(("Vary", "Host, X-Forwarded-Host, X-Forwarded-Proto")) }
            if HTTPCaching.notModified(request, etag: etag) { return .now(Response(status: 304, headers: headers)) }
            let body = DeepZoomDescriptor.xml(manifest.pyramid, format: format,
                                              tilesURL: namesFolder ? versionedTilesFolder(record, request) : nil)
            return .now(Response(status: 200, headers: headers, body: .bytes(Array(body.utf8))))
        }
        if request.query["v"] == nil { return try descriptorNamingVersionedTiles(record, request) }
        return try pyramidFile(store.descriptorPath(id: id, version: record.version), type: "application/xml",
                               etag: TileETag(version: record.version, .descriptor(format: nil, namesTilesFolder: false)).text,
                               record: record, request: request)
    }

    /// `finish` adds what the route's answer needs (a hot-answer key, a longer cache lifetime) to a 200 or 304.
    func tile(_ id: String, level: Int, column: Int, row: Int, _ request: Request,
              finish: @escaping @Sendable (inout Response) -> Void = { _ in }) throws -> Reply {
        let (record, manifest) = try checkedTile(id, level: level, column: column, row: row)
        if manifest.isDirect {
            return try directTile(record, manifest, level: level, column: column, row: row, request, finish: finish)
        }
        let path = store.tilePath(id: id, version: record.version, level: level, column: column, row: row)
        return try pyramidFile(path, type: "image/jpeg",
                               etag: TileETag(version: record.version, .tile(level: level, column: column, row: row)).text,
                               record: record, request: request, finish: finish)
    }

    /// The key under which a tile answer may be given again without routing (`HotResponses`): only for
    /// the versioned URL of the current version (`?v=` alone, immutable), spelt exactly as `PyramidURLs`
    /// writes it, so the kept answer is the one this very target got. Nil for anything else.
    func hotTileKey(_ id: String, level: Int, column: Int, row: Int, _ request: Request,
                    _ generation: UInt64) -> ReuseKey? {
        guard request.query.count == 1, let version = request.query["v"] else { return nil }
        let path = URLShape.deepZoomTile.path(.init(strings: [id], level: level, column: column, row: row))
        guard request.rawPath == path else { return nil }
        return ReuseKey(target: path + "?v=" + PyramidURLs.percentEncoded(version), group: id, generation: generation)
    }

    /// A tile in WebP or AVIF, as `DerivedFormats` answers it: the file if it was made before; else, for AVIF (a
    /// sixth to two fifths of a second of CPU), the JPEG tile at once with a short cache lifetime while the
    /// AVIF is made behind the reply; else (WebP: 9 ms) made on a worker thread, stored, and answered.
    ///
    /// `wantedVersion` is the version of `/dzi/{id}/{version}_files/` (`VersionedTiles`): a tile there is
    /// immutable when it is the current version's (made from its files: the record is read once) and 404
    /// otherwise; without it, `?v=` decides as for every pyramid URL. The JPEG stand-in of an AVIF still
    /// being made is never immutable (`InterimFormatTiles`).
    func formatTile(_ id: String, level: Int, column: Int, row: Int, format: DeepZoomTileFormat,
                    version wantedVersion: String? = nil, _ request: Request) throws -> Reply {
        guard format != .jpeg else { return try tile(id, level: level, column: column, row: row, request) }
        let (record, manifest) = try checkedTile(id, level: level, column: column, row: row)
        if manifest.isDirect { throw Self.noFormatsForDirect(id, format) }
        let version = record.version
        if let wantedVersion, wantedVersion != version { throw Self.noSuchVersion(id, wantedVersion) }
        let question = TileQuestion(
            record: record, manifest: manifest, picture: .tile(level: level, column: column, row: row), format: format,
            acceptsJXL: JPEGXLAnswers.accepted(by: request),
            cacheControl: wantedVersion != nil ? HTTPCaching.immutable
                : HTTPCaching.cacheControl(for: request, currentVersion: version),
            mayStartWork: request.method == "GET", holds: { HTTPCaching.notModified(request, etag: $0) })
        let stored = manifest.isTransparent
            ? store.alphaTilePath(id: id, version: version, level: level, column: column, row: row)
            : store.tilePath(id: id, version: version, level: level, column: column, row: row)
        return answerDerived(question, madeFrom: stored, request)
    }

    /// A source served from its own levels answers JPEG tiles and `preview.jpeg` only: the other formats are made
    /// from stored JPEG tiles, which it has none of (its `urls.formats` lists none).
    static func noFormatsForDirect(_ id: String, _ format: DeepZoomTileFormat) -> APIError {
        APIError.notFound("\(id) is served directly from its source's own levels, in JPEG only: no .\(format.rawValue) tiles or preview")
    }

    /// The image's record and pyramid, if the tile is one of its pyramid's; otherwise the 400 that says why.
    private func checkedTile(_ id: String, level: Int, column: Int, row: Int) throws -> (ImageRecord, PyramidManifest) {
        let (record, manifest) = try publishedImage(id)
        let pyramid = manifest.pyramid
        guard pyramid.contains(level: level) else {
            throw APIError.badRequest("level \(level) is above this image's maximum level \(pyramid.maxLevel)")
        }
        guard pyramid.contains(level: level, column: column, row: row) else {
            let grid = pyramid.tileGrid(ofLevel: level)
            throw APIError.badRequest(
                "tile \(column)_\(row) is outside level \(level), which has \(grid.columns) columns and \(grid.rows) rows")
        }
        try requirePublished(level: level, of: record, in: manifest)
        return (record, manifest)
    }

    func preview(_ id: String, _ request: Request) throws -> Reply {
        let (record, _) = try publishedImage(id)
        return try pyramidFile(store.previewPath(id: id, version: record.version), type: "image/jpeg",
                               etag: TileETag(version: record.version, .preview).text, record: record, request: request)
    }

    /// `GET /images/{id}/associated/{name}.jpeg`: one of a slide's associated images, published with it.
    func associatedImage(_ id: String, name: String, _ request: Request) throws -> Reply {
        let (record, manifest) = try publishedImage(id)
        guard let entry = manifest.associatedImages?.first(where: { $0.name == name }) else {
            let names = (manifest.associatedImages ?? []).map(\.name)
            throw APIError.notFound(names.isEmpty ? "\(id) has no associated images (only slides have them)"
                                    : "\(id)'s associated images are \(names.joined(separator: ", "))")
        }
        let path = AssociatedImages.path(in: store.versionFolder(id: id, version: record.version), name: entry.name)
        return try pyramidFile(path, type: "image/jpeg", etag: TileETag(version: record.version, .associated(name: entry.name)).text,
                               record: record, request: request)
    }

    /// A file of the pyramid as it is on the local disk; with a store that keeps pyramids elsewhere, a file not
    /// there yet is fetched first, on a worker thread (a round trip to the store never holds up a poll thread),
    /// then answered the same way. `finish` is applied to the answer either way.
    private func pyramidFile(_ path: String, type: String, etag: String, record: ImageRecord, request: Request,
                             finish: @escaping @Sendable (inout Response) -> Void = { _ in }) throws -> Reply {
        let cacheControl = HTTPCaching.cacheControl(for: request, currentVersion: record.version)
        let (memory, descriptors, store, id) = (pyramidBytes, pyramidFiles, store, record.id)
        @Sendable func answer() -> Response? {
            HTTPCaching.file(at: path, contentType: type, etag: etag, cacheControl: cacheControl, request: request,
                             memory: memory, descriptors: descriptors)
        }
        if var response = answer() {
            if store.fetchesOnMiss { store.noteServed(path) }
            finish(&response)
            return .now(response)
        }
        guard store.fetchesOnMiss else { throw APIError.notFound("the pyramid of \(record.id) has no such file") }
        return .later {
            do {
                // Twice at most: a file fetched can be evicted again before it is opened when the cache is full.
                for _ in 0..<2 {
                    guard try store.fetch(path) else { break }
                    if var response = answer() {
                        finish(&response)
                        return response
                    }
                }
                return APIError.notFound("the pyramid of \(id) has no such file").response
            } catch {
                return APIError(error).response
            }
        }
    }
}
