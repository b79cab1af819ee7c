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
    /// The smallest level that still has the resolution `output` asks of `region`, and the
    /// region's pixels in it.
    ///
    /// Level pixel `i` covers full-resolution pixels `i * 2^shift ..< (i + 1) * 2^shift`, so
    /// the region maps to `floor(x / 2^shift) ..< ceil((x + w) / 2^shift)`. A level qualifies
    /// when the region spans at least `output` of its pixels. At the image's right or bottom
    /// edge the level's last pixel stands for fewer source pixels, and counts whole: a
    /// tile-aligned request for the short last tile of a level (`ceil(w / 2^shift)` wide)
    /// then comes from that level as is, not from twice the pixels scaled down.
    public func levelRegion(for region: PixelRect, output: PixelSize) -> LevelRegion {
        var shift = maxLevel
        while shift > 0 {
            if extent(region.x, region.width, width, shift) >= Double(output.width),
               extent(region.y, region.height, height, shift) >= Double(output.height) { break }
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

    /// How many level pixels `start ..< start + length` (of a side `full` long) spans at `shift`.
    private func extent(_ start: Int, _ length: Int, _ full: Int, _ shift: Int) -> Double {
        let scale = Double(1 << shift)
        let end = start + length
        let endInLevel = end >= full ? Double((full + (1 << shift) - 1) >> shift) : Double(end) / scale
        return endInLevel - Double(start) / scale
    }
}
