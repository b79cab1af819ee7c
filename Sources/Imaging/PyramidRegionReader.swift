import CShims
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
/// region needs it; resizing and everything after it is a libvips pipeline, computed when
/// the caller encodes the result.
public struct PyramidRegionReader: RegionReading, Sendable {
    public let pyramid: Pyramid
    /// Where the stored JPEG tile of a level, column and row is.
    public let tilePath: @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String

    /// The kernel for the last step from the level's pixels to the output, which is at most
    /// a halving (the level has between one and two times the output's resolution).
    /// Linear, as IIPImage uses: about 12% less CPU per region request than libvips's
    /// default lanczos3, measured on bench/iiif.sh's region list.
    public var kernel: VipsKernel

    /// Linear (see `kernel`). A named constant because a default argument naming the C constant
    /// itself does not compile in release builds (`swift build -c release`: "cannot find
    /// 'VIPS_KERNEL_LINEAR' in scope"), which bench/run makes.
    public static let linear = VipsKernel(rawValue: 1)  // VIPS_KERNEL_LINEAR in libvips's enum

    public init(pyramid: Pyramid, kernel: VipsKernel = PyramidRegionReader.linear,
                tilePath: @escaping @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String) {
        self.pyramid = pyramid
        self.kernel = kernel
        self.tilePath = tilePath
    }

    /// `region` (full-resolution pixels, inside the image) scaled to exactly `size`.
    public func read(_ region: PixelRect, size: PixelSize) throws -> VImage {
        try Vips.start()
        let plan = pyramid.levelRegion(for: region, output: size)
        let cut = try levelPixels(plan)
        return try cut.resized(to: size, kernel: kernel)
    }

    /// The plan's rectangle of its level, decoded from the covering tiles (each tile only
    /// where it is the rectangle's, its overlap left out) into one buffer.
    func levelPixels(_ plan: LevelRegion) throws -> VImage {
        let tileSize = pyramid.tileSize
        let rect = plan.rect
        let columns = (rect.x / tileSize)...((rect.x + rect.width - 1) / tileSize)
        let rows = (rect.y / tileSize)...((rect.y + rect.height - 1) / tileSize)
        let bands = try JPEGTile.components(tilePath(plan.level, columns.lowerBound, rows.lowerBound))
        let stride = rect.width * bands
        let buffer = try VImage.PixelBuffer(byteCount: stride * rect.height)
        for row in rows {
            for column in columns {
                // The part of the rectangle in this tile's grid cell, in level pixels...
                let x0 = max(rect.x, column * tileSize), x1 = min(rect.x + rect.width, (column + 1) * tileSize)
                let y0 = max(rect.y, row * tileSize), y1 = min(rect.y + rect.height, (row + 1) * tileSize)
                // ...and in the stored tile, which starts `overlap` pixels before its cell.
                let stored = pyramid.tileRect(level: plan.level, column: column, row: row)
                try JPEGTile.decode(tilePath(plan.level, column, row),
                                    rect: PixelRect(x: x0 - stored.x, y: y0 - stored.y, width: x1 - x0, height: y1 - y0),
                                    into: buffer.bytes + (y0 - rect.y) * stride + (x0 - rect.x) * bands,
                                    stride: stride, bands: bands)
            }
        }
        return try VImage(pixels: buffer, width: rect.width, height: rect.height, bands: bands)
    }
}
