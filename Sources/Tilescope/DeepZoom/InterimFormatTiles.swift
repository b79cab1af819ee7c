import HTTPServer

/// The answer to a WebP or AVIF tile whose file is not made yet: the JPEG tile's own bytes, at once, as
/// `image/jpeg` under the tile's URL (browsers decode images by content; the OpenAPI contract allows
/// `image/jpeg` on this route), while the tile is made behind the reply (`FormatTileEncodings`).
///
/// Cached briefly, never as the final tile: `Cache-Control: public, max-age=10` and an ETag of its own
/// (`"{version}-{level}-{col}-{row}-{folder}-interim"`, never the made tile's). A browser or a shared
/// cache keeps the JPEG for ten seconds, so a viewer that asks again at once (OpenSeadragon drops and
/// re-requests tiles while zooming) gets it without a round trip, and then revalidates: `If-None-Match`
/// with the interim tag gets a 304 while the tile is still being made, and the made tile (200, its own tag,
/// a year's cache on the versioned URL) once it is. Not `no-cache`: every reuse of a tile during a zoom
/// would then cost a request until it is made. Not longer: the JPEG is at least 1.15x the AVIF's bytes,
/// and a year of `immutable` on the versioned URL would keep them for good.
extension TilescopeApp {
    static let interimCacheControl = "public, max-age=10"

    func interimFormatTile(_ record: ImageRecord, level: Int, column: Int, row: Int, format: DeepZoomTileFormat,
                           _ request: Request) throws -> Response {
        let etag = "\"\(record.version)-\(level)-\(column)-\(row)-\(format.folderName)-interim\""
        let path = store.tilePath(id: record.id, version: record.version, level: level, column: column, row: row)
        guard var response = HTTPCaching.file(at: path, contentType: "image/jpeg", etag: etag,
                                              cacheControl: Self.interimCacheControl, request: request,
                                              memory: pyramidBytes, descriptors: pyramidFiles) else {
            throw APIError.notFound("the pyramid of \(record.id) has no such file")
        }
        if response.status == 200 { response.setHeader("Server-Timing", "tile;desc=interim") }
        return response
    }
}
