import Foundation
import Imaging
import ScrollGeometry

/// WebP and AVIF copies of a pyramid's stored JPEG tiles, each made the first time it is asked for
/// and then served as a file, like IIIF's coinciding tiles (`IIIFTileFiles`).
///
/// WebP is made from the stored tile, overlap included, so it is the same square of pixels a JPEG
/// client gets: decoded, then encoded at WebP's tile quality (`TileQualities.quality`), a second
/// generation slightly softer than the JPEG. AVIF is made from the next finer level's stored tiles
/// shrunk 2 x 2 (`PyramidRegionReader.tileFromFinerLevel`), pixels closer to the source than the
/// stored tile, at a quality and effort whose SSIM against the source reaches the stored JPEG tile's
/// on bench/client's grainy image (bench/formats/levels.py, docs/api.md#tile-formats): the same picture
/// in fewer bytes. The deepest level has no finer level, and no AVIF made from its stored tile
/// reaches that tile's picture at fewer bytes: there the AVIF is made from the source's own pixels
/// (`writeFromSource`), and kept only where its SSIM against them reaches the stored tile's, measured
/// per tile; elsewhere the AVIF tile is the JPEG (re-encoded losslessly, below).
///
/// Why not at build time: most tiles of most images are never asked for in a second format, and the
/// build would take several times longer. (The exception is the fit level, which every whole-image view at
/// DPR 2 draws: its AVIF tiles are queued as the build completes, `FitLevelAVIF`.) WebP is made before its first reply (9 ms); AVIF (a sixth
/// to two fifths of a second) behind it, the JPEG tile answering meanwhile (`FormatTileEncodings`
/// below the deepest level, `SourceTilePasses` at it, `InterimFormatTiles`). Version-safe: the files live in the version's folder
/// (`formats/{folder}/{level}/{column}_{row}.{format}`, the folder named after the encoding), so a
/// new source version has new, empty folders and the old ones go with the old version.
///
/// Never larger than the JPEG: where the encoding comes out no smaller than the stored tile re-encoded
/// losslessly with optimized Huffman tables (`OptimizedJPEG`: the same pixels, 6 to 7 % fewer bytes), that
/// re-encoded JPEG is kept instead, as `{column}_{row}.huffman.jpeg` beside, and served as `image/jpeg` under
/// the tile's URL (browsers decode by content) with an ETag of its own, so a client that asks for the
/// smaller format never gets more bytes, nor a softer picture. (Before, the kept bytes were the stored
/// tile's own, as `{column}_{row}.jpeg`; such files are no longer read, and the tile is made again.) The
/// plain `.jpeg` URL keeps serving the stored tile byte for byte.
struct DeepZoomFormatTiles: Sendable {
    /// `.../pyramids/{id}/{version}`
    let versionFolder: String
    let format: DeepZoomTileFormat

    func path(level: Int, column: Int, row: Int) -> String {
        "\(versionFolder)/formats/\(format.folderName)/\(level)/\(column)_\(row).\(format.rawValue)"
    }

    /// Where the re-encoded JPEG is kept for a tile whose encoding was no smaller.
    func jpegPath(level: Int, column: Int, row: Int) -> String {
        "\(versionFolder)/formats/\(format.folderName)/\(level)/\(column)_\(row).huffman.jpeg"
    }

    /// The ETag of the tile's answer: the made tile's, or the kept JPEG's (other bytes, another tag).
    static func etag(version: String, level: Int, column: Int, row: Int, format: DeepZoomTileFormat,
                     isJPEG: Bool) -> TileETag {
        TileETag(version: version, .tile(level: level, column: column, row: row), encoding: format.folderName,
                 bytes: isJPEG ? .keptJPEG : .encoded)
    }

    /// Where the tile's JPEG XL is kept (`JPEGXLAnswers`). It is there only where it is the tile's smallest
    /// answer, so a client that accepts it gets it first: made with the tile when smaller than the encoding kept
    /// (`keepJPEGXL`: the stored tile recompressed, or beside an AVIF a lossy one at the AVIF's picture), or on
    /// such a client's first request of a tile kept as JPEG (the recompression) when smaller than that JPEG.
    func jxlPath(level: Int, column: Int, row: Int) -> String {
        "\(versionFolder)/formats/\(format.folderName)/\(level)/\(column)_\(row).jxl"
    }

    /// Keeps a JPEG XL beside the encoding just kept if one is smaller than its `limit` bytes: the smaller of the
    /// stored tile `jpeg` recompressed without loss (3 ms) and, given the `reference` pixels the encoding was made
    /// from, a lossy one of them whose picture reaches the stored tile's (`TileQualities.sourceJPEGXL`, 13-16 ms
    /// an attempt). Where it is lossy, a JPEG XL client gets the AVIF's promise (the JPEG's picture or better
    /// against the same pixels) in fewer bytes. A lossy encoding that fails is logged and left out: the
    /// recompression, or the encoding kept, still answers.
    func keepJPEGXL(of jpeg: [UInt8], ifSmallerThan limit: Int, reference: PlainPixels?, level: Int,
                    column: Int, row: Int) {
        guard let best = Self.smallestJPEGXL(of: jpeg, reference: reference, under: limit, name: "\(level)/\(column)_\(row)")
        else { return }
        DerivedFile.publish(best, at: jxlPath(level: level, column: column, row: row), versionFolder: versionFolder)
    }

    /// The smaller of `jpeg` recompressed losslessly as JPEG XL and, given the pixels it was encoded from, a lossy
    /// JPEG XL of them that reaches the JPEG's SSIM against them; nil unless one is smaller than `limit` bytes.
    static func smallestJPEGXL(of jpeg: [UInt8], reference: PlainPixels?, under limit: Int, name: String) -> [UInt8]? {
        var best = JPEGXLAnswers.smaller(jpeg, than: limit, name: name)
        if let reference {
            do {
                if let lossy = try TileQualities.sourceJPEGXL.first(of: reference, reaching: jpeg,
                                                                    under: best?.count ?? limit) {
                    best = lossy
                }
            } catch {
                Log.info("cannot make the lossy JPEG XL of tile \(name): \(error)")
            }
        }
        return best
    }

    /// The kept JPEG of a tile, and its JPEG XL (`{column}_{row}.jxl` beside, `-jxl` tag) for the clients that
    /// accept it (`JPEGXLAnswers`).
    func kept(level: Int, column: Int, row: Int, version: String, storedPath: String) -> KeptJPEG {
        let etag = Self.etag(version: version, level: level, column: column, row: row, format: format, isJPEG: true)
        return KeptJPEG(path: jpegPath(level: level, column: column, row: row), etag: etag,
                        jxlPath: jxlPath(level: level, column: column, row: row),
                        storedPath: storedPath, name: "\(level)/\(column)_\(row)")
    }

    /// Encodes the tile, from the stored JPEG tile at `jpegPath` (WebP) or from the finer level that
    /// `pyramid` reads (AVIF), and stores the smaller of it and the JPEG re-encoded losslessly: the bytes,
    /// and whether they are the JPEG's.
    func write(level: Int, column: Int, row: Int, from jpegPath: String, jpegQuality: Int,
               pyramid: PyramidRegionReader) throws -> (bytes: [UInt8], isJPEG: Bool) {
        let bytes: [UInt8]?
        // The pixels an AVIF is made from: what a lossy JPEG XL of the tile is made from and measured against.
        var reference: PlainPixels?
        switch format {
        case .avif where level < pyramid.pyramid.maxLevel:
            let pixels = try pyramid.tileFromFinerLevel(level: level, column: column, row: row)
            reference = pixels.copy()
            bytes = try pixels.image()
                .avifData(quality: TileQualities.finerLevelAVIFQuality, effort: TileQualities.finerLevelAVIFEffort)
        case .avif, .jpeg, .png:  // PNG: a transparent image's, stored (`TransparentAnswers`)
            bytes = nil
        case .webp:
            let encoded = format.encoded
            bytes = try VImage.open(jpegPath).encoded(as: encoded, quality: TileQualities.quality(of: encoded, jpegQuality: jpegQuality))
        }
        guard let jpeg = FileManager.default.contents(atPath: jpegPath) else {
            throw APIError(500, "render_failed", "the stored tile \(level)/\(column)_\(row) cannot be read")
        }
        let kept = KeptJPEG.optimized([UInt8](jpeg), tile: "\(level)/\(column)_\(row)")
        if let bytes, bytes.count < kept.count {
            DerivedFile.publish(bytes, at: path(level: level, column: column, row: row), versionFolder: versionFolder)
            keepJPEGXL(of: [UInt8](jpeg), ifSmallerThan: bytes.count, reference: reference, level: level, column: column,
                       row: row)
            return (bytes, false)
        }
        DerivedFile.publish(kept, at: self.jpegPath(level: level, column: column, row: row), versionFolder: versionFolder)
        return (kept, true)
    }

    /// Makes the deepest level's tile from `tile`, the source's pixels of it (nil when the source could not
    /// give them: changed, gone, unreadable), and stores the AVIF if its picture reaches the stored tile's,
    /// else the stored tile re-encoded losslessly: either is the tile's final answer. Nothing is done when
    /// either is stored already. Whether the AVIF was kept.
    @discardableResult
    func writeFromSource(_ tile: SourceTileRows.Tile?, level: Int, column: Int, row: Int, jpegPath: String) throws -> Bool {
        let target = path(level: level, column: column, row: row), keptPath = self.jpegPath(level: level, column: column, row: row)
        guard access(target, F_OK) != 0 && access(keptPath, F_OK) != 0 else { return false }
        guard let stored = FileManager.default.contents(atPath: jpegPath) else {
            throw APIError(500, "render_failed", "the stored tile \(level)/\(column)_\(row) cannot be read")
        }
        let jpeg = [UInt8](stored)
        let kept = KeptJPEG.optimized(jpeg, tile: "\(level)/\(column)_\(row)")
        if let tile, let avif = try Self.sourceAVIF(tile, reaching: jpeg, under: kept.count) {
            DerivedFile.publish(avif, at: target, versionFolder: versionFolder)
            keepJPEGXL(of: jpeg, ifSmallerThan: avif.count, reference: tile.picture, level: level, column: column, row: row)
            return true
        }
        DerivedFile.publish(kept, at: keptPath, versionFolder: versionFolder)
        return false
    }

    /// The first AVIF of `tile` up the deepest level's ladder (`TileQualities.sourceAVIF`) smaller than `limit`
    /// bytes whose SSIM against the tile's source pixels reaches the stored tile `jpeg`'s; nil if none does.
    static func sourceAVIF(_ tile: SourceTileRows.Tile, reaching jpeg: [UInt8], under limit: Int) throws -> [UInt8]? {
        try TileQualities.sourceAVIF.first(of: tile.picture, reaching: jpeg, under: limit)
    }
}
