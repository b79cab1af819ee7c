import Foundation
import ScrollGeometry

/// Reads any region of a Deep Zoom pyramid on disk at any output size, decoding only the
/// few stored tiles of one level that cover it.
///
/// Why tiles and not one big file: random access into a plain JPEG or PNG makes libvips
/// decode the whole image, while each stored tile is a small JPEG that decodes in well
/// under a millisecond. The level is the smallest one that still has at least the
/// requested resolution, so a thumbnail of a gigapixel image touches one or two tiles.
/// The covering tiles are decoded into one buffer (`JPEGTile`), each only as far as the
/// region needs it, then resized in the same memory (`RegionPixels`); anything after that
/// (rotation, quality, other formats) is a libvips pipeline, computed when the caller encodes.
public struct PyramidRegionReader: RegionReading, Sendable {
    public let pyramid: Pyramid
    /// Where the stored JPEG tile of a level, column and row is.
    public let tilePath: @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String

    public init(pyramid: Pyramid, tilePath: @escaping @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String) {
        self.pyramid = pyramid
        self.tilePath = tilePath
    }

    /// `region` (full-resolution pixels, inside the image) scaled to exactly `size`.
    public func read(_ region: PixelRect, size: PixelSize) throws -> VImage {
        try Vips.start()
        return try readPixels(region, size: size).image()
    }

    /// `region` scaled to exactly `size`, in plain memory: the level's pixels resized with a
    /// triangle filter (`RegionPixels.resized`), which at most halves them (the level has between
    /// one and two times the output's resolution). Linear, as IIPImage resamples.
    public func readPixels(_ region: PixelRect, size: PixelSize) throws -> RegionPixels {
        try levelPixels(pyramid.levelRegion(for: region, output: size)).resized(to: size)
    }

    /// The plan's rectangle of its level, decoded from the covering tiles (each tile only
    /// where it is the rectangle's, its overlap left out) into one buffer.
    func levelPixels(_ plan: LevelRegion) throws -> RegionPixels {
        let tileSize = pyramid.tileSize
        let rect = plan.rect
        let columns = (rect.x / tileSize)...((rect.x + rect.width - 1) / tileSize)
        let rows = (rect.y / tileSize)...((rect.y + rect.height - 1) / tileSize)
        // The first tile is read once: it says how many bands the region has, then is decoded into it.
        let first = try JPEGTile.File(path: tilePath(plan.level, columns.lowerBound, rows.lowerBound))
        let bands = try first.components()
        let pixels = try RegionPixels(width: rect.width, height: rect.height, bands: bands)
        let stride = pixels.stride
        for row in rows {
            for column in columns {
                // The part of the rectangle in this tile's grid cell, in level pixels...
                let x0 = max(rect.x, column * tileSize), x1 = min(rect.x + rect.width, (column + 1) * tileSize)
                let y0 = max(rect.y, row * tileSize), y1 = min(rect.y + rect.height, (row + 1) * tileSize)
                // ...and in the stored tile, which starts `overlap` pixels before its cell.
                let stored = pyramid.tileRect(level: plan.level, column: column, row: row)
                let file = row == rows.lowerBound && column == columns.lowerBound
                    ? first : try JPEGTile.File(path: tilePath(plan.level, column, row))
                try file.decode(rect: PixelRect(x: x0 - stored.x, y: y0 - stored.y, width: x1 - x0, height: y1 - y0),
                                into: pixels.buffer.bytes + (y0 - rect.y) * stride + (x0 - rect.x) * bands,
                                stride: stride, bands: bands)
            }
        }
        return pixels
    }
}
