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
/// Tiles are opened lazily and joined into one libvips pipeline: nothing is decoded
/// until the caller encodes the result.
public struct PyramidRegionReader: Sendable {
    public let pyramid: Pyramid
    /// Where the stored JPEG tile of a level, column and row is.
    public let tilePath: @Sendable (_ level: Int, _ column: Int, _ row: Int) -> String

    /// The kernel for the last step from the level's pixels to the output, which is at most
    /// a halving (the level has between one and two times the output's resolution).
    /// Linear, as IIPImage uses: about 12% less CPU per region request than libvips's
    /// default lanczos3, measured on bench/iiif.sh's region list (docs/iiif.md).
    public var kernel: VipsKernel

    public init(pyramid: Pyramid, kernel: VipsKernel = VIPS_KERNEL_LINEAR,
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
        if cut.width == size.width && cut.height == size.height { return cut }
        let scaled = try cut.resize(horizontal: Double(size.width) / Double(cut.width),
                                    vertical: Double(size.height) / Double(cut.height), kernel: kernel)
        guard scaled.width >= size.width, scaled.height >= size.height else {
            throw VipsError(message: "resize gave \(scaled.width)x\(scaled.height), wanted \(size.width)x\(size.height)")
        }
        if scaled.width == size.width && scaled.height == size.height { return scaled }
        return try scaled.crop(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// The plan's rectangle of its level, cut from the covering tiles without their overlap.
    func levelPixels(_ plan: LevelRegion) throws -> VImage {
        let tileSize = pyramid.tileSize
        let rect = plan.rect
        let columns = (rect.x / tileSize)...((rect.x + rect.width - 1) / tileSize)
        let rows = (rect.y / tileSize)...((rect.y + rect.height - 1) / tileSize)
        if columns.count == 1 && rows.count == 1 {
            // One tile: crop straight from it (the common case of tile-aligned requests).
            let (tile, core) = try openCore(level: plan.level, column: columns.lowerBound, row: rows.lowerBound)
            return try tile.crop(x: core.x + rect.x - columns.lowerBound * tileSize,
                                 y: core.y + rect.y - rows.lowerBound * tileSize,
                                 width: rect.width, height: rect.height)
        }
        var pieces: [VImage] = []
        for row in rows {
            for column in columns {
                let (tile, core) = try openCore(level: plan.level, column: column, row: row)
                pieces.append(try tile.crop(x: core.x, y: core.y, width: core.width, height: core.height))
            }
        }
        // Every core is tileSize square except those on the level's right and bottom edges,
        // which can only be the last column or row here: arrayjoin pads after them, and
        // the final crop never reaches into that padding.
        return try VImage.join(pieces, across: columns.count)
            .crop(x: rect.x - columns.lowerBound * tileSize, y: rect.y - rows.lowerBound * tileSize,
                  width: rect.width, height: rect.height)
    }

    /// A stored tile and where its overlap-free core lies inside it.
    private func openCore(level: Int, column: Int, row: Int) throws -> (VImage, PixelRect) {
        let tile = try VImage.openJPEG(tilePath(level, column, row))
        let stored = pyramid.tileRect(level: level, column: column, row: row)
        let levelSize = pyramid.size(ofLevel: level)
        let x = column * pyramid.tileSize
        let y = row * pyramid.tileSize
        let core = PixelRect(x: x - stored.x, y: y - stored.y,
                             width: min(pyramid.tileSize, levelSize.width - x),
                             height: min(pyramid.tileSize, levelSize.height - y))
        guard tile.width >= core.x + core.width, tile.height >= core.y + core.height else {
            throw VipsError(message: "tile \(level)/\(column)_\(row) is \(tile.width)x\(tile.height), "
                + "smaller than the pyramid's geometry says")
        }
        return (tile, core)
    }
}
