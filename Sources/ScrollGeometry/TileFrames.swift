/// Rule 10 for a block of tiles of one level, computed once per column and once per row.
///
/// A tile's `x` and `width` depend only on its level and column, its `y` and `height` only on its level and
/// row, so a screenful of a hundred tiles needs a dozen of each, not a hundred rectangles with their checks.
/// Every frame is the very `Tile(_:in:zoomScale:)` would give, bit for bit: the same integers scaled by
/// the same factor.
struct TileFrames {
    let level: Int
    private let columns: Range<Int>
    private let rows: Range<Int>
    /// `x` and `width` per column of `columns`.
    private let across: [(x: Double, width: Double)]
    /// `y` and `height` per row of `rows`.
    private let down: [(y: Double, height: Double)]

    /// `columns` and `rows` must be non-empty and within the level's grid.
    init(pyramid: Pyramid, level: Int, columns: Range<Int>, rows: Range<Int>, zoomScale: Double) {
        let factor = zoomScale / pyramid.scale(ofLevel: level)
        self.level = level
        self.columns = columns
        self.rows = rows
        let size = pyramid.size(ofLevel: level)
        across = columns.map { column in
            let (x, width) = pyramid.tileSpan(index: column, extent: size.width)
            return (Double(x) * factor, Double(width) * factor)
        }
        down = rows.map { row in
            let (y, height) = pyramid.tileSpan(index: row, extent: size.height)
            return (Double(y) * factor, Double(height) * factor)
        }
    }

    /// The tile at `column`, `row` of this level, within `columns` x `rows` only.
    func tile(column: Int, row: Int) -> Tile {
        let (x, width) = across[column - columns.lowerBound]
        let (y, height) = down[row - rows.lowerBound]
        return Tile(TileAddress(level: level, column: column, row: row),
                    frame: Rect(x: x, y: y, width: width, height: height))
    }
}
