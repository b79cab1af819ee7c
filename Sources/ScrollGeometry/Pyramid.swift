/// The Deep Zoom arithmetic of an image pyramid, as OpenSeadragon and libvips dzsave use it.
///
/// Level `maxLevel` is the full image; each level below halves it, rounding up,
/// down to level 0 which is 1 x 1. Every level is cut into `tileSize` squares;
/// each stored tile also carries `overlap` pixels of its neighbours on every inner edge.
public struct Pyramid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public let tileSize: Int
    public let overlap: Int

    /// `width` and `height` must be at least 1, `tileSize` at least 1, `overlap` at least 0.
    public init(width: Int, height: Int, tileSize: Int = 254, overlap: Int = 1) {
        precondition(width > 0 && height > 0 && tileSize > 0 && overlap >= 0)
        self.width = width
        self.height = height
        self.tileSize = tileSize
        self.overlap = overlap
    }

    /// `ceil(log2(max(width, height)))`, computed exactly on integers.
    public var maxLevel: Int {
        let longSide = max(width, height)
        return longSide <= 1 ? 0 : Int.bitWidth - (longSide - 1).leadingZeroBitCount
    }

    public var levels: ClosedRange<Int> { 0...maxLevel }

    public func contains(level: Int) -> Bool { levels.contains(level) }

    /// `s(L) = 2^(L - maxLevel)`: level pixels per image pixel.
    public func scale(ofLevel level: Int) -> Double {
        precondition(contains(level: level))
        return 1.0 / Double(1 << (maxLevel - level))
    }

    /// `ceil(width * s(L)) x ceil(height * s(L))`.
    public func size(ofLevel level: Int) -> PixelSize {
        precondition(contains(level: level))
        let shift = maxLevel - level
        let divisor = 1 << shift
        return PixelSize(width: (width + divisor - 1) >> shift, height: (height + divisor - 1) >> shift)
    }

    /// Columns and rows of the non-overlapping tile grid of a level.
    public func tileGrid(ofLevel level: Int) -> (columns: Int, rows: Int) {
        let size = size(ofLevel: level)
        return ((size.width + tileSize - 1) / tileSize, (size.height + tileSize - 1) / tileSize)
    }

    public func contains(level: Int, column: Int, row: Int) -> Bool {
        guard contains(level: level), column >= 0, row >= 0 else { return false }
        let grid = tileGrid(ofLevel: level)
        return column < grid.columns && row < grid.rows
    }

    /// Where the stored tile lies in its level, overlap included:
    /// from `c*T - (c > 0 ? O : 0)` to `min(levelWidth, (c+1)*T + O)`, and the same for rows.
    public func tileRect(level: Int, column: Int, row: Int) -> PixelRect {
        precondition(contains(level: level, column: column, row: row))
        let size = size(ofLevel: level)
        let (x0, x1) = span(index: column, extent: size.width)
        let (y0, y1) = span(index: row, extent: size.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    private func span(index: Int, extent: Int) -> (Int, Int) {
        let start = index * tileSize - (index > 0 ? overlap : 0)
        let end = min(extent, (index + 1) * tileSize + overlap)
        return (start, end)
    }

    /// `tileRect` along one axis of a level `extent` pixels long (its width or height): where stored column or
    /// row `index` starts and how long it is. For a block of columns or rows, one level size instead of
    /// `tileRect`'s checks of the whole address per tile. `index` must be within the axis's grid.
    public func tileSpan(index: Int, extent: Int) -> (start: Int, length: Int) {
        precondition(index >= 0 && index < (extent + tileSize - 1) / tileSize)
        let (start, end) = span(index: index, extent: extent)
        return (start, end - start)
    }

    /// The largest level whose width and height are both at most `maxSide`:
    /// the level the whole-image preview shows.
    public func previewLevel(maxSide: Int = 1024) -> Int {
        var level = maxLevel
        while level > 0 {
            let size = size(ofLevel: level)
            if size.width <= maxSide && size.height <= maxSide { break }
            level -= 1
        }
        return level
    }
}
