import CTileDecoder
import Foundation
import ScrollGeometry

/// A tile of a level between two Deep Zoom levels (`BetweenLevel`), made from the finer level's stored tiles: the
/// part of that level the tile's filter reaches is decoded (`PyramidRegionReader.levelPixels`), then shrunk by the
/// level's exact ratio with the triangle filter every region read uses, as a window of the whole level shrunk at
/// once (`ts_resize_linear_window`), so that neighbouring tiles agree where they overlap and the level has no seams.
public struct BetweenLevelTile: Sendable {
    public let pyramid: Pyramid
    public let level: BetweenLevel
    public let column: Int
    public let row: Int

    /// Nil unless the tile is one of the level's.
    public init?(pyramid: Pyramid, level: BetweenLevel, column: Int, row: Int) {
        guard level.contains(column: column, row: row, in: pyramid) else { return nil }
        self.pyramid = pyramid
        self.level = level
        self.column = column
        self.row = row
    }

    /// The tile's pixels, read from the finer level's stored tiles through `reader`.
    public func pixels(from reader: PyramidRegionReader) throws -> RegionPixels {
        let rect = level.tileRect(column: column, row: row, in: pyramid)
        let size = level.size(in: pyramid)
        let finerSize = pyramid.size(ofLevel: level.finer)
        let scaleX = Double(finerSize.width) / Double(size.width)
        let scaleY = Double(finerSize.height) / Double(size.height)
        let x = Self.reach(rect.x, rect.width, scale: scaleX, extent: finerSize.width)
        let y = Self.reach(rect.y, rect.height, scale: scaleY, extent: finerSize.height)
        let source = try reader.levelPixels(LevelRegion(level: level.finer, shift: pyramid.maxLevel - level.finer,
                                                        rect: PixelRect(x: x.lowerBound, y: y.lowerBound,
                                                                        width: x.count, height: y.count)))
        let out = try RegionPixels(width: rect.width, height: rect.height, bands: source.bands)
        try JPEGTile.check {
            ts_resize_linear_window(source.buffer.bytes, source.stride, Int32(source.width), Int32(source.height),
                                    Int32(source.bands), out.buffer.bytes, out.stride, Int32(out.width),
                                    Int32(out.height), scaleX, scaleY, Double(x.lowerBound), Double(y.lowerBound),
                                    Double(rect.x), Double(rect.y), $0, $1)
        }
        return out
    }

    /// The finer level's pixels that output pixels `start ..< start + length` read along one axis: their centres
    /// `(o + 0.5) x scale - 0.5`, widened by the filter's radius (`scale`, the shrink) and the whole taps it takes,
    /// clipped to the level (past its edges the filter repeats the edge pixel).
    static func reach(_ start: Int, _ length: Int, scale: Double, extent: Int) -> Range<Int> {
        let radius = max(scale, 1)
        let first = (Double(start) + 0.5) * scale - 0.5 - radius
        let last = (Double(start + length - 1) + 0.5) * scale - 0.5 + radius
        let low = max(0, Int(first.rounded(.down)))
        let high = min(extent, Int(last.rounded(.up)) + 2)
        return low..<max(high, low + 1)
    }
}
