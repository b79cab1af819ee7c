import Foundation
import Imaging
import ScrollGeometry

/// WebP and AVIF copies of a pyramid's stored JPEG tiles, each made the first time it is asked for
/// and then served as a file, like IIIF's coinciding tiles (`IIIFTileFiles`).
///
/// WebP is made from the stored tile, overlap included, so it is the same square of pixels a JPEG
/// client gets: decoded, then encoded at WebP's tile quality (`EncodedFormat.quality`), a second
/// generation slightly softer than the JPEG. AVIF is made from the next finer level's stored tiles
/// shrunk 2 x 2 (`PyramidRegionReader.tileFromFinerLevel`), pixels closer to the source than the
/// stored tile, at a quality and effort whose SSIM against the source reaches the stored JPEG tile's
/// on bench/client's grainy image (bench/formats/levels.py, docs/iiif.md#formats): the same picture
/// in fewer bytes. The deepest level has no finer level, and no AVIF made from its stored tile
/// reaches that tile's picture at fewer bytes, so there the AVIF tile is the JPEG (re-encoded
/// losslessly, below).
///
/// Why not at build time: most tiles of most images are never asked for in a second format, and the
/// build would take several times longer. WebP is made before its first reply (9 ms); AVIF below the
/// deepest level (a third of a second) behind it, the JPEG tile answering meanwhile
/// (`FormatTileEncodings`, `InterimFormatTiles`). Version-safe: the files live in the version's folder
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
    /// AVIF's quality and encoder effort. Q83 at effort 4 is the lowest that reaches the stored
    /// tiles' SSIM at every level bench/client draws (levels 11-13: 50-86% of the JPEG's bytes);
    /// effort 2 needs Q85 and then makes tiles larger than the JPEG on that image.
    static let avifQuality = 83, avifEffort = 4

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
                     isJPEG: Bool) -> String {
        "\"\(version)-\(level)-\(column)-\(row)-\(format.folderName)\(isJPEG ? "-huffman" : "")\""
    }

    /// Encodes the tile, from the stored JPEG tile at `jpegPath` (WebP) or from the finer level that
    /// `pyramid` reads (AVIF), and stores the smaller of it and the JPEG re-encoded losslessly: the bytes,
    /// and whether they are the JPEG's.
    func write(level: Int, column: Int, row: Int, from jpegPath: String, jpegQuality: Int,
               pyramid: PyramidRegionReader) throws -> (bytes: [UInt8], isJPEG: Bool) {
        let bytes: [UInt8]?
        switch format {
        case .avif where level < pyramid.pyramid.maxLevel:
            bytes = try pyramid.tileFromFinerLevel(level: level, column: column, row: row).image()
                .avifData(quality: Self.avifQuality, effort: Self.avifEffort)
        case .avif, .jpeg:
            bytes = nil
        case .webp:
            let encoded = format.encoded
            bytes = try VImage.open(jpegPath).encoded(as: encoded, quality: encoded.quality(jpegQuality: jpegQuality))
        }
        guard let jpeg = FileManager.default.contents(atPath: jpegPath) else {
            throw APIError(500, "render_failed", "the stored tile \(level)/\(column)_\(row) cannot be read")
        }
        let kept = Self.optimized([UInt8](jpeg), tile: "\(level)/\(column)_\(row)")
        if let bytes, bytes.count < kept.count {
            DerivedFile.publish(bytes, at: path(level: level, column: column, row: row), versionFolder: versionFolder)
            return (bytes, false)
        }
        DerivedFile.publish(kept, at: self.jpegPath(level: level, column: column, row: row), versionFolder: versionFolder)
        return (kept, true)
    }

    /// The stored tile with optimized Huffman tables (never more bytes); the stored tile itself if libjpeg
    /// refuses it (a damaged file: the `.jpeg` URL serves it as it is too, and a viewer decodes what it can).
    static func optimized(_ jpeg: [UInt8], tile: String) -> [UInt8] {
        do {
            return try OptimizedJPEG.bytes(jpeg)
        } catch {
            Log.info("the stored tile \(tile) cannot be re-encoded, kept as it is: \(error)")
            return jpeg
        }
    }

    /// The descriptor of the same pyramid in this format: dzsave's, with `Format` changed.
    static func descriptor(_ pyramid: Pyramid, format: DeepZoomTileFormat) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="\(format.rawValue)" \
        Overlap="\(pyramid.overlap)" TileSize="\(pyramid.tileSize)"><Size Height="\(pyramid.height)" \
        Width="\(pyramid.width)"/></Image>

        """
    }
}
