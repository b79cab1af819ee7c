import HTTPServer
import Imaging
import ScrollGeometry

/// `GET /images/{id}/between/{level}/{step}/{column}_{row}.{jpeg,avif}`: a tile of a level between Deep Zoom levels
/// `level` and `level + 1` (`BetweenLevel`), answered by `DerivedFormats` (`BetweenLevelTiles`). Versioned as every
/// pyramid URL (`?v=`); made from the finer level, so it answers once that level is published.
extension TilescopeApp {
    func betweenTile(_ id: String, level: Int, step: String, column: Int, row: Int, format: String,
                     _ request: Request) throws -> Reply {
        guard format == "jpeg" || format == "avif", let tileFormat = DeepZoomTileFormat(fileExtension: format),
              DeepZoomTileFormat.offered.contains(tileFormat) || tileFormat == .jpeg else {
            throw APIError.notFound("the tiles of the levels between Deep Zoom's are .jpeg or .avif files")
        }
        let (record, manifest) = try publishedImage(id)
        if manifest.isDirect || manifest.isTransparent {
            throw APIError.notFound("\(id) has no levels between Deep Zoom's: they are made from stored JPEG tiles, "
                                    + (manifest.isDirect ? "and it is served from its source's own levels"
                                       : "and it is transparent (its tiles are PNG)"))
        }
        let pyramid = manifest.pyramid
        guard let stepNumber = Endpoint.naturalNumber(step), level < pyramid.maxLevel,
              let between = BetweenLevel(below: level, step: stepNumber, in: pyramid) else {
            throw APIError.badRequest("levels between Deep Zoom's are {level}/1 and {level}/2 for levels 0 to "
                                      + "\(pyramid.maxLevel - 1) of this image, not \(level)/\(step.prefix(12))")
        }
        guard between.contains(column: column, row: row, in: pyramid) else {
            let grid = between.tileGrid(in: pyramid)
            throw APIError.badRequest("tile \(column)_\(row) is outside level \(level)/\(stepNumber), which has "
                                      + "\(grid.columns) columns and \(grid.rows) rows")
        }
        try requirePublished(level: between.finer, of: record, in: manifest)
        let question = TileQuestion(
            record: record, manifest: manifest, picture: .between(between, column: column, row: row), format: tileFormat,
            acceptsJXL: JPEGXLAnswers.accepted(by: request), cacheControl: HTTPCaching.cacheControl(for: request, currentVersion: record.version),
            mayStartWork: request.method == "GET", holds: { HTTPCaching.notModified(request, etag: $0) })
        return reply(derivedFormats.answer(question), for: request)
    }
}
