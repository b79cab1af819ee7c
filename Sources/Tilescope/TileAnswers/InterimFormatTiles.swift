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
/// the AVIF encoding that the same request queues (50-400 ms). Run inline when alone (`CostlyWork.mayRunInline`), as other millisecond work.
///
/// Cached briefly, never as the final tile: `Cache-Control: public, max-age=10` and an ETag of its own
/// (`"{version}-{level}-{col}-{row}-{folder}-interim"`, never the made tile's). A browser or a shared
/// cache keeps the JPEG for ten seconds, so a viewer that asks again at once (OpenSeadragon drops and
/// re-requests tiles while zooming) gets it without a round trip, and then revalidates: `If-None-Match`
/// with the interim tag gets a 304 while the tile is still being made, and the made tile (200, its own tag,
/// a year's cache on the versioned URL) once it is. Not `no-cache`: every reuse of a tile during a zoom
/// would then cost a request until it is made. Not longer: the JPEG is at least 1.15x the AVIF's bytes,
/// and a year of `immutable` on the versioned URL would keep them for good.
extension DerivedFormats {
    static let interimCacheControl = "public, max-age=10"

    func interimTile(_ question: TileQuestion, level: Int, column: Int, row: Int) -> TileAnswer {
        let record = question.record
        return interimJPEG(at: store.tilePath(id: record.id, version: record.version, level: level, column: column, row: row),
                           etag: TileETag(version: record.version, .tile(level: level, column: column, row: row),
                                          encoding: question.format.folderName, bytes: .interimJPEG),
                           named: "\(level)/\(column)_\(row)", question)
    }

    /// `preview.jpeg` re-encoded losslessly, briefly cached under a tag of its own.
    func interimPreview(_ question: TileQuestion) -> TileAnswer {
        let record = question.record
        return interimJPEG(at: store.previewPath(id: record.id, version: record.version),
                           etag: TileETag(version: record.version, .preview, encoding: PreviewAVIF.folderName,
                                          bytes: .interimJPEG),
                           named: "preview", question)
    }

    /// The stand-in for a file not made yet: the stored JPEG at `path` (a tile, the preview) re-encoded losslessly
    /// with optimized Huffman tables, or for a client that accepts JPEG XL its recompression when that is the
    /// smaller (`JPEGXLAnswers`: the same pixels again, tagged `{etag}-jxl`), under the interim `etag` and cache
    /// lifetime; 304 for either tag.
    func interimJPEG(at path: String, etag: TileETag, named name: String, _ question: TileQuestion) -> TileAnswer {
        let jxlETag = etag.with(.interimJPEGXL), cacheControl = Self.interimCacheControl
        if question.holds(etag.text) { return .notModified(type: "image/jpeg", etag: etag, cacheControl: cacheControl) }
        if question.acceptsJXL && question.holds(jxlETag.text) {
            return .notModified(type: JPEGXLAnswers.mediaType, etag: jxlETag, cacheControl: cacheControl)
        }
        let memory = self.memory, id = question.record.id, acceptsJXL = question.acceptsJXL
        return .made(soon: true, pixels: question.workPixels) {
            let start = DispatchTime.now().uptimeNanoseconds
            let stored = memory.bytes(at: path).map { $0.withUnsafeBytes { Array($0) } }
                ?? FileManager.default.contents(atPath: path).map { [UInt8]($0) }
            guard let stored else { return .failed(APIError.notFound("the pyramid of \(id) has no such file"), varies: false) }
            let optimized = KeptJPEG.optimized(stored, tile: name)
            let jxl = acceptsJXL ? JPEGXLAnswers.smaller(stored, than: optimized.count, name: name) : nil
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            return .bytes(.made(jxl ?? optimized), type: jxl != nil ? JPEGXLAnswers.mediaType : "image/jpeg",
                          etag: jxl != nil ? jxlETag : etag, cacheControl: cacheControl,
                          timing: "tile;desc=interim, render;dur=" + ServerTiming.milliseconds(seconds))
        }
    }
}
