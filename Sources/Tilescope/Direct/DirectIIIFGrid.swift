import HTTPServer
import Imaging
import ScrollGeometry

/// The IIIF tile grid of a source served directly: its own stored tiles' size, so that a IIIF client's tiles are
/// the file's tiles and go out as stored (`StoredSourceTiles`), as IIPImage's do.
extension TilescopeApp {
    /// Runs `answer` with the grid's tile size (nil: the Deep Zoom pyramid's, for built images and sources without
    /// a usable grid), at once when the source is open, else on a worker thread after opening it (an OpenSlide
    /// slide's header takes hundreds of milliseconds, too long for a poll thread).
    func withIIIFTileSize(of record: ImageRecord, _ manifest: PyramidManifest,
                          _ answer: @escaping @Sendable (PixelSize?) -> Response) -> Reply {
        guard manifest.isDirect else { return .now(answer(nil)) }
        if let source = directSources.openSource(of: record) { return .now(answer(Self.iiifTileSize(of: source))) }
        let sources = directSources
        return .later { answer((try? sources.source(of: record)).flatMap(Self.iiifTileSize)) }
    }

    /// The full level's stored tile size, when it is one a IIIF client can page by (a JPEG 2000 stored as one
    /// tile, or a TIFF of tiny tiles, keeps the Deep Zoom grid).
    static func iiifTileSize(of source: PyramidalSource) -> PixelSize? {
        guard let tiles = source.levels[0].tiles, usableTileSides.contains(tiles.width),
              usableTileSides.contains(tiles.height) else { return nil }
        return PixelSize(width: tiles.width, height: tiles.height)
    }

    static let usableTileSides = 64...2048
}
