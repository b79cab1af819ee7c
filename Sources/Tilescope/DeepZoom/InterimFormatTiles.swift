import Foundation
import HTTPServer

/// The answer to a WebP or AVIF tile whose file is not made yet: the JPEG tile's own pixels, at once, as
/// `image/jpeg` under the tile's URL (browsers decode images by content; the OpenAPI contract allows
/// `image/jpeg` on this route), while the tile is made behind the reply (`FormatTileEncodings`).
///
/// The bytes are the stored tile re-encoded losslessly with optimized Huffman tables (`OptimizedJPEG`: the
/// same pixels, 6 to 7 % fewer bytes, about a millisecond of CPU), or, to a client that accepts JPEG XL, its
/// JPEG XL recompression (the same pixels, 87 % of those bytes, 3 ms; `JPEGXLAnswers`), made per request and
/// not kept: the first viewer of a tile, who gets this stand-in, is sent fewer bytes, for at most a tenth of
/// the AVIF encoding that the same request queues (50-400 ms). `Reply.soon`, as for other millisecond work.
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
                           acceptsJXL: Bool, _ request: Request) -> Reply {
        interimJPEG(at: store.tilePath(id: record.id, version: record.version, level: level, column: column, row: row),
                    etag: TileETag(version: record.version, .tile(level: level, column: column, row: row),
                                   encoding: format.folderName, bytes: .interimJPEG),
                    named: "\(level)/\(column)_\(row)", of: record.id, acceptsJXL: acceptsJXL, request)
    }

    /// The stand-in for a file not made yet: the stored JPEG at `path` (a tile, the preview) re-encoded losslessly
    /// with optimized Huffman tables, or for a client that accepts JPEG XL its recompression when that is the
    /// smaller (`JPEGXLAnswers`: the same pixels again, tagged `{etag}-jxl`), under the interim `etag` and cache
    /// lifetime; 304 for either tag.
    func interimJPEG(at path: String, etag interim: TileETag, named name: String, of id: String, acceptsJXL: Bool,
                     _ request: Request) -> Reply {
        let etag = interim.text, jxlETag = interim.with(.interimJPEGXL).text
        @Sendable func headers(jxl: Bool) -> [(name: String, value: String)] {
            [("Content-Type", jxl ? JPEGXLAnswers.mediaType : "image/jpeg"), ("ETag", jxl ? jxlETag : etag),
             ("Cache-Control", Self.interimCacheControl), JPEGXLAnswers.vary]
        }
        if HTTPCaching.notModified(request, etag: etag) { return .now(Response(status: 304, headers: headers(jxl: false))) }
        if acceptsJXL && HTTPCaching.notModified(request, etag: jxlETag) {
            return .now(Response(status: 304, headers: headers(jxl: true)))
        }
        let memory = pyramidBytes
        return .soon {
            let start = DispatchTime.now().uptimeNanoseconds
            let stored = memory.bytes(at: path).map { $0.withUnsafeBytes { Array($0) } }
                ?? FileManager.default.contents(atPath: path).map { [UInt8]($0) }
            guard let stored else { return APIError.notFound("the pyramid of \(id) has no such file").response }
            let optimized = DeepZoomFormatTiles.optimized(stored, tile: name)
            let jxl = acceptsJXL ? JPEGXLAnswers.smaller(stored, than: optimized.count, name: name) : nil
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let timing = ("Server-Timing", "tile;desc=interim, render;dur=" + ServerTiming.milliseconds(seconds))
            return Response(status: 200, headers: headers(jxl: jxl != nil) + [timing], body: .bytes(jxl ?? optimized))
        }
    }
}
