import Foundation
import Imaging
import ScrollGeometry

/// IIIF tiles kept as files next to the Deep Zoom pyramid, so that a request coinciding
/// with a pyramid tile is a `sendfile` of fixed bytes, with no decoding or encoding.
///
/// Why not serve the Deep Zoom tile itself: it carries one pixel of overlap on each inner
/// edge and IIIF tiles have none, so its bytes are never the IIIF answer. JPEG can only be
/// cropped losslessly on 8 or 16 pixel block boundaries, and the overlap is 1 pixel.
/// Why not write them at build time: dzsave would run a second time over the source,
/// doubling build time and disk for tiles most of which are never asked for over IIIF.
/// So each is written the first time it is requested: the stored tile decoded, its overlap
/// cut away, encoded once (about a millisecond), written and renamed into place atomically
/// after the reply (`IIIFTileWrites`); every later
/// request, from any thread or after a restart, gets the same bytes from the file.
/// They live in the version's folder (`iiif/{level}/{column}_{row}.{jpg,webp,avif}`) and go with it.
struct IIIFTileFiles: Sendable {
    /// `.../pyramids/{id}/{version}`: the files go with it.
    let versionFolder: String
    /// `{versionFolder}/iiif`
    var folder: String { versionFolder + "/iiif" }

    struct Tile: Equatable {
        var level: Int, column: Int, row: Int
        var format: IIIFFormat = .jpg
    }

    /// The formats whose coinciding tiles are kept as files: the ones viewers ask for tile by tile.
    static let formats: Set<IIIFFormat> = [.jpg, .webp, .avif]

    func path(_ tile: Tile) -> String {
        "\(folder)/\(tile.level)/\(tile.column)_\(tile.row).\(tile.format.rawValue)"
    }

    /// The pyramid tile a rendering is exactly, or nil: the region must be one tile of a
    /// level at that level's own resolution, unrotated, in colour, as JPEG, WebP or AVIF.
    static func tile(for rendering: IIIFRendering, in pyramid: Pyramid) -> Tile? {
        guard formats.contains(rendering.format), rendering.quality == .default || rendering.quality == .color,
              !rendering.rotation.mirror, rendering.rotation.quarterTurns == 0 else { return nil }
        let plan = pyramid.levelRegion(for: rendering.region, output: rendering.size)
        let size = pyramid.size(ofLevel: plan.level)
        let t = pyramid.tileSize
        let column = plan.rect.x / t, row = plan.rect.y / t
        // Exact in source pixels, not just after rounding to the level.
        let region = rendering.region
        guard region.x == (column * t) << plan.shift, region.y == (row * t) << plan.shift,
              region.x + region.width == min(((column + 1) * t) << plan.shift, pyramid.width),
              region.y + region.height == min(((row + 1) * t) << plan.shift, pyramid.height),
              rendering.size.width == min(t, size.width - column * t),
              rendering.size.height == min(t, size.height - row * t) else { return nil }
        return Tile(level: plan.level, column: column, row: row, format: rendering.format)
    }

    /// Renders the tile and stores it (behind the reply, through `writes`); a failure to store only
    /// costs the next request a render.
    func write(_ tile: Tile, rendering: IIIFRendering, reader: any RegionReading, jpegQuality: Int,
               background: Background, writes: IIIFTileWrites) throws -> [UInt8] {
        let bytes = try IIIFRenderer(reader: reader, jpegQuality: jpegQuality, background: background).render(rendering)
        writes.publish(bytes, at: path(tile), versionFolder: versionFolder, synced: !StoredTileCheck.isChecked(tile.format))
        return bytes
    }
}
