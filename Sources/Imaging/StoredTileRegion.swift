import CTileDecoder
import Foundation
import ScrollGeometry

/// A direct source's region read from its stored JPEG tiles with libjpeg-turbo and resampled in plain memory
/// (`ts_area_resample`), without a libvips pipeline: what `LevelArea.resampled` computes through libvips's
/// tiffload, shrink and bilinear affine, the same arithmetic, so the same pixels to within a level.
///
/// Why: through libvips a region of a JPEG TIFF cost the CPU IIPImage's does, 60 % of it in libvips's
/// resampling machinery (region buffers, the affine's per-pixel transform) and a quarter decoding the level's
/// tiles through libtiff; the built images' regions, decoded with `JPEGTile` and resized in memory, cost half.
/// The tiles decoded are kept (`DecodedSourceTiles`), so that a neighbouring region decodes only what is new.
///
/// Only for levels whose tiles are JPEGs libjpeg decodes to exactly what libvips reads (those that are sent as
/// stored: `StoredJPEGTiles`, 8-bit RGB or YCbCr, no ICC profile); nil otherwise, and the caller reads through
/// libvips.
extension PyramidalSource {
    /// `read(region, size:)`'s pixels made from the stored tiles, or nil where the level's tiles are not such
    /// JPEGs (or one of them is missing from the file).
    public func storedTilePixels(_ region: PixelRect, size: PixelSize,
                                 cache: DecodedSourceTiles = .shared) throws -> RegionPixels? {
        guard let file = sourceFile, isInside(region, size: size) else { return nil }
        let (index, area) = plan(region, size: size)
        let level = levels[index]
        guard let stored = level.tiles, let jpegs = stored.passthrough else { return nil }
        // Sizes a file declares are bounded before they reach C ints and buffers: a level under 2^29 pixels a side
        // keeps every product in `ts_area_resample` inside an int; a tile over 4096 a side (no real file's) is
        // left to libvips rather than decoded into one buffer.
        guard level.width < Self.largestLevelSide, level.height < Self.largestLevelSide,
              size.width < Self.largestLevelSide, size.height < Self.largestLevelSide,
              stored.width <= Self.largestTileSide, stored.height <= Self.largestTileSide else { return nil }
        let scaleX = Double(size.width) / area.width, scaleY = Double(size.height) / area.height
        let shrinkX = LevelArea.wholeShrink(scaleX), shrinkY = LevelArea.wholeShrink(scaleY)
        let (left, top) = (area.x0 / Double(shrinkX), area.y0 / Double(shrinkY))
        let (finalX, finalY) = (scaleX * Double(shrinkX), scaleY * Double(shrinkY))
        var window = (x: Int32(0), y: Int32(0), width: Int32(0), height: Int32(0))
        try JPEGTile.check {
            ts_area_window(Int32(level.width), Int32(level.height), Int32(shrinkX), Int32(shrinkY), left, top,
                           finalX, finalY, Int32(size.width), Int32(size.height),
                           &window.x, &window.y, &window.width, &window.height, $0, $1)
        }
        let rect = PixelRect(x: Int(window.x), y: Int(window.y), width: Int(window.width), height: Int(window.height))
        let tileGrid = StoredTileGrid(level: index, levelWidth: level.width, levelHeight: level.height,
                                      tileWidth: stored.width, tileHeight: stored.height)
        let decode = { (column: Int, row: Int) throws -> DecodedSourceTiles.Tile? in
            try self.decodedTile(tileGrid, column: column, row: row, jpegs: jpegs, file: file, cache: cache)
        }
        let out = try RegionPixels(width: size.width, height: size.height, bands: 3)
        let resample = { (pixels: UnsafePointer<UInt8>, stride: Int, origin: PixelRect) throws in
            try JPEGTile.check {
                ts_area_resample(pixels, stride, Int32(origin.x), Int32(origin.y), Int32(origin.width), Int32(origin.height),
                                 Int32(level.width), Int32(level.height), 3, Int32(shrinkX), Int32(shrinkY),
                                 left, top, finalX, finalY, out.buffer.bytes, out.stride,
                                 Int32(size.width), Int32(size.height), $0, $1)
            }
        }
        let columns = tileGrid.columns(of: rect), rows = tileGrid.rows(of: rect)
        if columns.count == 1 && rows.count == 1 {
            // Within one tile: resampled from the tile's own pixels, no copy.
            guard let tile = try decode(columns.lowerBound, rows.lowerBound) else { return nil }
            let origin = tileGrid.rect(column: columns.lowerBound, row: rows.lowerBound)
            try tile.pixels.withUnsafeBufferPointer { try resample($0.baseAddress!, tile.width * 3, origin) }
            return out
        }
        let windowPixels = try RegionPixels(width: rect.width, height: rect.height, bands: 3)
        for row in rows {
            for column in columns {
                guard let tile = try decode(column, row) else { return nil }
                let cell = tileGrid.rect(column: column, row: row)
                let x0 = max(rect.x, cell.x), x1 = min(rect.x + rect.width, cell.x + cell.width)
                let y0 = max(rect.y, cell.y), y1 = min(rect.y + rect.height, cell.y + cell.height)
                tile.pixels.withUnsafeBufferPointer { source in
                    for y in y0..<y1 {
                        (windowPixels.buffer.bytes + (y - rect.y) * windowPixels.stride + (x0 - rect.x) * 3)
                            .update(from: source.baseAddress! + ((y - cell.y) * tile.width + (x0 - cell.x)) * 3,
                                    count: (x1 - x0) * 3)
                    }
                }
            }
        }
        try resample(windowPixels.buffer.bytes, windowPixels.stride, rect)
        return out
    }

    /// Tile `column`, `row` of the grid's level decoded (the part inside the level), from `cache` or decoded
    /// now and kept; nil when the file has no JPEG there.
    private func decodedTile(_ grid: StoredTileGrid, column: Int, row: Int, jpegs: StoredJPEGTiles, file: SourceFile,
                             cache: DecodedSourceTiles) throws -> DecodedSourceTiles.Tile? {
        let key = DecodedSourceTiles.Key(source: identity, level: grid.level, column: column, row: row)
        do {
            return try cache.tile(key) {
                guard let jpeg = try jpegs.jpeg(column: column, row: row, in: file) else { throw NoStoredJPEG() }
                let cell = grid.rect(column: column, row: row)
                var pixels = [UInt8](repeating: 0, count: cell.width * cell.height * 3)
                try jpeg.withUnsafeBufferPointer { data in
                    try pixels.withUnsafeMutableBufferPointer { out in
                        try JPEGTile.check {
                            ts_jpeg_decode_rect_of(data.baseAddress!, data.count, path, out.baseAddress!, cell.width * 3, 3,
                                                   0, 0, Int32(cell.width), Int32(cell.height), $0, $1)
                        }
                    }
                }
                return DecodedSourceTiles.Tile(pixels: pixels, width: cell.width, height: cell.height)
            }
        } catch is NoStoredJPEG {
            return nil
        }
    }

    private struct NoStoredJPEG: Error {}

    static let largestLevelSide = 1 << 29
    static let largestTileSide = 4096

    /// Whether `region` lies inside the image and `size` is a size.
    func isInside(_ region: PixelRect, size: PixelSize) -> Bool {
        region.x >= 0 && region.y >= 0 && region.width > 0 && region.height > 0
            && region.x + region.width <= width && region.y + region.height <= height
            && size.width > 0 && size.height > 0
    }
}

/// A level's stored tile grid: which tiles a rectangle of the level lies on, and where each is (cut at the
/// level's right and bottom ends, where a TIFF's tiles are padded).
struct StoredTileGrid {
    let level: Int
    let levelWidth: Int, levelHeight: Int
    let tileWidth: Int, tileHeight: Int

    func columns(of rect: PixelRect) -> ClosedRange<Int> {
        (rect.x / tileWidth)...((rect.x + rect.width - 1) / tileWidth)
    }

    func rows(of rect: PixelRect) -> ClosedRange<Int> {
        (rect.y / tileHeight)...((rect.y + rect.height - 1) / tileHeight)
    }

    func rect(column: Int, row: Int) -> PixelRect {
        let x = column * tileWidth, y = row * tileHeight
        return PixelRect(x: x, y: y, width: min(tileWidth, levelWidth - x), height: min(tileHeight, levelHeight - y))
    }
}
