import Foundation
import Imaging
import ScrollGeometry

/// WebP and AVIF copies of a pyramid's stored JPEG tiles, each made the first time it is asked for
/// and then served as a file, like IIIF's coinciding tiles (`IIIFTileFiles`).
///
/// Made from the stored tile, overlap included, so it is the same square of pixels a JPEG client
/// gets: decoded, then encoded at the format's tile quality (`EncodedFormat.quality`). Why not at
/// build time: most tiles of most images are never asked for in a second format, and the build
/// would take several times longer (AVIF encodes ten times slower than JPEG). Version-safe: the
/// files live in the version's folder (`formats/{format}/{level}/{column}_{row}.{format}`), so a
/// new source version has new, empty folders and the old ones go with the old version.
///
/// Never larger than the JPEG: where the encoding comes out no smaller than the stored tile (grainy
/// images in WebP), the JPEG bytes themselves are kept, as `{column}_{row}.jpeg` beside, and served
/// as `image/jpeg` under the tile's URL (browsers decode by content), so a client that asks for the
/// smaller format never gets more bytes.
struct DeepZoomFormatTiles: Sendable {
    /// `.../pyramids/{id}/{version}`
    let versionFolder: String
    let format: DeepZoomTileFormat

    func path(level: Int, column: Int, row: Int) -> String {
        "\(versionFolder)/formats/\(format.rawValue)/\(level)/\(column)_\(row).\(format.rawValue)"
    }

    /// Where the JPEG bytes are kept for a tile whose encoding was no smaller.
    func jpegPath(level: Int, column: Int, row: Int) -> String {
        "\(versionFolder)/formats/\(format.rawValue)/\(level)/\(column)_\(row).jpeg"
    }

    /// Encodes the stored JPEG tile at `jpegPath` and stores the smaller of the two: the bytes, and
    /// whether they are the JPEG's.
    func write(level: Int, column: Int, row: Int, from jpegPath: String,
               jpegQuality: Int) throws -> (bytes: [UInt8], isJPEG: Bool) {
        let encoded = format.encoded
        let bytes = try VImage.open(jpegPath).encoded(as: encoded, quality: encoded.quality(jpegQuality: jpegQuality))
        if let jpeg = FileManager.default.contents(atPath: jpegPath), jpeg.count <= bytes.count {
            let kept = [UInt8](jpeg)
            DerivedFile.publish(kept, at: self.jpegPath(level: level, column: column, row: row), versionFolder: versionFolder)
            return (kept, true)
        }
        DerivedFile.publish(bytes, at: path(level: level, column: column, row: row), versionFolder: versionFolder)
        return (bytes, false)
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
