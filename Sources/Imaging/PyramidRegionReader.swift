import CVipsShims
import CVips
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
///
/// A transparent image's PNG tiles (`isTransparent`) are read the same way, by libvips, with their alpha:
/// 2 or 4 bands.
public struct PyramidRegionReader: RegionReading, Sendable {
    public let pyramid: Pyramid
    /// Where the stored JPEG (or PNG) tile of a level, column and row is.
    public let tilePath: @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String

    /// Whether `tilePath` names a transparent image's PNG tiles (their pixels carry alpha) rather than JPEGs.
    public let isTransparent: Bool

    public init(pyramid: Pyramid, isTransparent: Bool = false,
                tilePath: @escaping @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String) {
        self.pyramid = pyramid
        self.isTransparent = isTransparent
        self.tilePath = tilePath
    }

    /// `region` (full-resolution pixels, inside the image) scaled to exactly `size`.
    public func read(_ region: PixelRect, size: PixelSize) throws -> VImage {
        try Vips.start()
        let pixels = try levelPixels(pyramid.levelRegion(for: region, output: size))
        guard pixels.bands == 2 || pixels.bands == 4 else { return try pixels.resized(to: size).image() }
        // With alpha (a transparent image's PNG tiles): libvips's resize with the same triangle filter.
        let image = try pixels.image()
        guard image.width != size.width || image.height != size.height else { return image }
        return try image.resized(to: size, kernel: VIPS_KERNEL_LINEAR)
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
        let first = try open(tilePath(plan.level, columns.lowerBound, rows.lowerBound))
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
                    ? first : try open(tilePath(plan.level, column, row))
                try file.decode(rect: PixelRect(x: x0 - stored.x, y: y0 - stored.y, width: x1 - x0, height: y1 - y0),
                                into: pixels.buffer.bytes + (y0 - rect.y) * stride + (x0 - rect.x) * bands,
                                stride: stride, bands: bands)
            }
        }
        return pixels
    }

    private func open(_ path: String) throws -> any StoredTileFile {
        isTransparent ? try PNGTileFile(path: path) : try JPEGTile.File(path: path)
    }
}

/// A stored tile, read once, decoded a rectangle at a time into a region's buffer.
protocol StoredTileFile {
    func components() throws -> Int
    func decode(rect: PixelRect, into destination: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int) throws
}

extension JPEGTile.File: StoredTileFile {}

/// A transparent image's PNG tile, decoded by libvips (only IIIF answers of such images read them).
final class PNGTileFile: StoredTileFile {
    private let image: VImage

    init(path: String) throws {
        try Vips.start()
        image = try VImage.open(path)
    }

    func components() throws -> Int { image.bands }

    func decode(rect: PixelRect, into destination: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int) throws {
        guard image.bands == bands, image.format == VIPS_FORMAT_UCHAR else {
            throw VipsError(message: "a PNG tile has \(image.bands) bands where its region has \(bands)")
        }
        let pixels = try image.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
        let rowBytes = rect.width * bands
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<rect.height {
                (destination + row * stride).update(from: source.baseAddress! + row * rowBytes, count: rowBytes)
            }
        }
    }
}
