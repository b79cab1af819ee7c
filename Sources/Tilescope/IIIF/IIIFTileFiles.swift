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
/// cut away, encoded once (about a millisecond), renamed into place atomically; every later
/// request, from any thread or after a restart, gets the same bytes from the file.
/// They live in the version's folder (`iiif/{level}/{column}_{row}.jpg`) and go with it.
struct IIIFTileFiles: Sendable {
    /// `.../pyramids/{id}/{version}/iiif`
    let folder: String

    struct Tile: Equatable {
        var level: Int, column: Int, row: Int
    }

    func path(_ tile: Tile) -> String { "\(folder)/\(tile.level)/\(tile.column)_\(tile.row).jpg" }

    /// The pyramid tile a rendering is exactly, or nil: the region must be one tile of a
    /// level at that level's own resolution, unrotated, in colour, as JPEG.
    static func tile(for rendering: IIIFRendering, in pyramid: Pyramid) -> Tile? {
        guard rendering.format == .jpg, rendering.quality == .default || rendering.quality == .color,
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
        return Tile(level: plan.level, column: column, row: row)
    }

    /// Renders the tile and stores it; a failure to store only costs the next request a render.
    func write(_ tile: Tile, rendering: IIIFRendering, reader: PyramidRegionReader, quality: Int) throws -> [UInt8] {
        let bytes = try reader.read(rendering.region, size: rendering.size).encoded(as: .jpeg, quality: quality)
        let final = path(tile)
        let folder = (final as NSString).deletingLastPathComponent
        let temporary = "\(final).\(UUID().uuidString.prefix(8)).tmp"
        if (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
           Self.writeSynced(bytes, to: temporary) {
            if rename(temporary, final) != 0 { unlink(temporary) }
        } else {
            unlink(temporary)
        }
        return bytes
    }

    /// The bytes on disk before the rename makes them visible: a file renamed into place with its data
    /// still in the page cache can be empty after a power cut, and this one would then be served, with a
    /// year of caching, forever. fsync costs about 0.2 ms here, once per tile.
    private static func writeSynced(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return fsync(descriptor) == 0
    }
}
