import ScrollGeometry

/// Which pyramid level answers a region request, and which of that level's pixels.
public struct LevelRegion: Equatable, Sendable {
    public var level: Int
    /// The level is the full image shrunk by `2^shift`.
    public var shift: Int
    /// In level pixels, inside the level.
    public var rect: PixelRect

    public init(level: Int, shift: Int, rect: PixelRect) {
        self.level = level
        self.shift = shift
        self.rect = rect
    }
}

extension Pyramid {
    /// The smallest level that still has (nearly) the resolution `output` asks of `region`,
    /// and the region's pixels in it.
    ///
    /// Level pixel `i` covers full-resolution pixels `i * 2^shift ..< (i + 1) * 2^shift`, so
    /// the region maps to `floor(x / 2^shift) ..< ceil((x + w) / 2^shift)`. A level qualifies
    /// when the region's exact extent in it exceeds `output - 1` pixels: a tile-aligned
    /// request for the short last tile of a level (`ceil(w / 2^shift)` wide) then comes
    /// from that level as is, not from twice the pixels scaled down.
    public func levelRegion(for region: PixelRect, output: PixelSize) -> LevelRegion {
        var shift = maxLevel
        while shift > 0 {
            let scale = Double(1 << shift)
            if Double(region.width) / scale > Double(output.width - 1),
               Double(region.height) / scale > Double(output.height - 1) { break }
            shift -= 1
        }
        let level = maxLevel - shift
        let size = size(ofLevel: level)
        let divisor = 1 << shift
        let x0 = region.x >> shift
        let y0 = region.y >> shift
        let x1 = min(size.width, (region.x + region.width + divisor - 1) >> shift)
        let y1 = min(size.height, (region.y + region.height + divisor - 1) >> shift)
        return LevelRegion(level: level, shift: shift,
                           rect: PixelRect(x: x0, y: y0, width: max(1, x1 - x0), height: max(1, y1 - y0)))
    }
}
