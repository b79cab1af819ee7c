import HTTPServer
import Imaging
import ScrollGeometry

/// The IIIF answers of a source served directly that are tiles of its own grid (`DirectIIIFGrid`), held in the
/// pyramid memory (`--pyramid-cache-mb`) once made, as a built image's coinciding tiles are held once read from
/// their files: a repeated tile then costs a lookup and a send, not a read of the file (a tile sent as stored)
/// nor a decode and an encode (the short tiles at a level's right and bottom ends, and other formats and
/// qualities). Nothing is written to disk. Other regions are not held here: they are many, seldom asked twice,
/// and have the derivative cache.
struct DirectGridTiles: Sendable {
    /// The version's folder: held answers are keyed under it, so a new version of the source never meets them.
    let versionFolder: String
    let tileSize: PixelSize
    let imageSize: PixelSize

    /// The key an answer is held under, or nil when `rendering` is not a whole tile of the grid at a power-of-two
    /// scale, not turned nor mirrored (any quality and format: each is held apart).
    func key(for rendering: IIIFRendering) -> String? {
        guard Self.isGridTile(rendering, tileSize: tileSize, imageSize: imageSize) else { return nil }
        return versionFolder + "/iiif-grid/" + rendering.canonical
    }

    /// Whether the region is the tile at some column and row of the grid scaled by 2^k, clipped by the image,
    /// and the size that tile at 1/2^k (rounded up, as `info.json`'s `scaleFactors` make IIIF clients ask).
    static func isGridTile(_ rendering: IIIFRendering, tileSize: PixelSize, imageSize: PixelSize) -> Bool {
        guard rendering.rotation.degrees == 0, !rendering.rotation.mirror, tileSize.width > 0, tileSize.height > 0
        else { return false }
        let region = rendering.region
        // Tiles are at most 2048 a side (`usableTileSides`) and scales at most 2^20: no product nears Int's range.
        for power in 0..<maxScalePower {
            let scale = 1 << power
            let across = tileSize.width * scale, down = tileSize.height * scale
            // Past this scale the whole image is one pixel: `info.json`'s scale factors stop there too.
            guard scale <= 2 * max(imageSize.width, imageSize.height) else { break }
            guard region.x % across == 0, region.y % down == 0,
                  region.width == min(across, imageSize.width - region.x),
                  region.height == min(down, imageSize.height - region.y) else { continue }
            // The whole image is the region at every scale past the grid's coarsest: another may match the size.
            if rendering.size.width == (region.width + scale - 1) / scale,
               rendering.size.height == (region.height + scale - 1) / scale { return true }
        }
        return false
    }

    /// Scales up to 2^20; the search stops earlier, once the image would be a pixel.
    static let maxScalePower = 21
}

extension DirectGridTiles {
    /// The held tiles of a version of `source`: its IIIF grid as `info.json` gives it (`withIIIFTileSize`).
    init(of source: PyramidalSource, _ pyramid: Pyramid, versionFolder: String) {
        self.init(versionFolder: versionFolder,
                  tileSize: TilescopeApp.iiifTileSize(of: source) ?? PixelSize(width: pyramid.tileSize, height: pyramid.tileSize),
                  imageSize: PixelSize(width: pyramid.width, height: pyramid.height))
    }
}
