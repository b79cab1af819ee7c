import ScrollGeometry

/// Writes a viewport's tile list, formatting each column's and each row's numbers once.
///
/// Rule 10 makes a tile's `x` and `width` depend on its level and column only, and `y` and `height` on its
/// level and row only, and the URL repeats the same column and row digits. A retina viewport lists a
/// hundred or more tiles from a dozen columns and rows, so printing every number of every tile (four
/// shortest-form doubles and five integers each) was most of the answer's cost; here a tile is a
/// sequence of copies of text written once per column, once per row and once per level.
struct TileListJSON: ~Copyable {
    /// Every piece of text, back to back: level heads, URL heads, and the columns' and rows' pieces.
    private var text = ViewportJSON(capacity: 4096)
    private var levels: [LevelText] = []
    /// Per axis entry (a column or a row of a level), `Self.stride` offsets into `text`: where its text
    /// starts and where each of its four pieces ends; the start is -1 until the entry is filled.
    private var entries: [Int] = []
    private let urlSuffix: [UInt8]
    private static let stride = 5

    init(urlPrefix: [UInt8], urlSuffix: [UInt8], tiles: [Tile]) {
        self.urlSuffix = urlSuffix
        var ranges: [(level: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>)] = []
        for tile in tiles {
            let a = tile.address
            if let i = ranges.firstIndex(where: { $0.level == a.level }) {
                ranges[i].columns = min(ranges[i].columns.lowerBound, a.column)...max(ranges[i].columns.upperBound, a.column)
                ranges[i].rows = min(ranges[i].rows.lowerBound, a.row)...max(ranges[i].rows.upperBound, a.row)
            } else {
                ranges.append((a.level, a.column...a.column, a.row...a.row))
            }
        }
        for range in ranges {
            let headStart = text.length
            text.appendRaw(#"{"level":"#)
            text.appendInt(range.level)
            text.appendRaw(#","column":"#)
            let urlHeadStart = text.length
            text.appendRaw(#","url":""#)
            text.appendRaw(urlPrefix)
            text.appendInt(range.level)
            text.appendRaw("/")
            let columnBase = entries.count / Self.stride
            entries += Array(repeating: -1, count: Self.stride * range.columns.count)
            let rowBase = entries.count / Self.stride
            entries += Array(repeating: -1, count: Self.stride * range.rows.count)
            levels.append(LevelText(level: range.level, head: headStart..<urlHeadStart, urlHead: urlHeadStart..<text.length,
                                    firstColumn: range.columns.lowerBound, columnBase: columnBase,
                                    firstRow: range.rows.lowerBound, rowBase: rowBase))
        }
    }

    /// `[{"level":L,"column":C,"row":R,"url":"…","frame":{"x":X,"y":Y,"width":W,"height":H}},…]`
    ///
    /// A tile is ten copies: the level's head, then column and row pieces in turn, with the level's URL head
    /// in the middle: `{"level":L,"column":` `C` `,"row":R` `,"url":"…/L/` `C_` `R….jpeg?v=…","frame":{"x":`
    /// `X,"y":` `Y,"width":` `W,"height":` `H}}`.
    mutating func write(_ tiles: [Tile], key: StaticString, to out: inout ViewportJSON) {
        // Fill first: the copying below reads `text` through one pointer, which filling would move.
        // Per tile: the index of its level in `levels`, and the offsets of its column's and row's entries.
        var placed: [(group: Int, column: Int, row: Int)] = []
        placed.reserveCapacity(tiles.count)
        for tile in tiles {
            let a = tile.address
            let group = levels.firstIndex { $0.level == a.level }!
            let column = Self.stride * (levels[group].columnBase + a.column - levels[group].firstColumn)
            let row = Self.stride * (levels[group].rowBase + a.row - levels[group].firstRow)
            if entries[column] < 0 { fillColumn(column, a.column, x: tile.frame.x, width: tile.frame.width) }
            if entries[row] < 0 { fillRow(row, a.row, y: tile.frame.y, height: tile.frame.height) }
            placed.append((group, column, row))
        }
        text.appendRaw("0123456789abcdef")  // readable slack after the last piece, for `appendUnchecked`
        out.beginArray(key)
        text.withUnsafeBytes { text in
            entries.withUnsafeBufferPointer { entries in
                let text = text.baseAddress!
                for (index, tile) in placed.enumerated() {
                    let level = levels[tile.group]
                    let c = tile.column, r = tile.row
                    if index > 0 { out.appendRaw(",") }
                    out.reserve(extra: 16 + level.head.count + level.urlHead.count
                                + entries[c + 4] - entries[c] + entries[r + 4] - entries[r])
                    func copy(_ start: Int, _ end: Int) {
                        out.appendUnchecked(text + start, length: end - start)
                    }
                    copy(level.head.lowerBound, level.head.upperBound)
                    copy(entries[c], entries[c + 1])
                    copy(entries[r], entries[r + 1])
                    copy(level.urlHead.lowerBound, level.urlHead.upperBound)
                    copy(entries[c + 1], entries[c + 2])
                    copy(entries[r + 1], entries[r + 2])
                    copy(entries[c + 2], entries[c + 3])
                    copy(entries[r + 2], entries[r + 3])
                    copy(entries[c + 3], entries[c + 4])
                    copy(entries[r + 3], entries[r + 4])
                }
            }
        }
        out.endArray()
    }

    /// `C` `C_` `X,"y":` `W,"height":`
    private mutating func fillColumn(_ entry: Int, _ column: Int, x: Double, width: Double) {
        entries[entry] = text.length
        text.appendInt(column)
        entries[entry + 1] = text.length
        text.appendInt(column)
        text.appendRaw("_")
        entries[entry + 2] = text.length
        text.appendNumber(x)
        text.appendRaw(#","y":"#)
        entries[entry + 3] = text.length
        text.appendNumber(width)
        text.appendRaw(#","height":"#)
        entries[entry + 4] = text.length
    }

    /// `,"row":R` `R{suffix}","frame":{"x":` `Y,"width":` `H}}`
    private mutating func fillRow(_ entry: Int, _ row: Int, y: Double, height: Double) {
        entries[entry] = text.length
        text.appendRaw(#","row":"#)
        text.appendInt(row)
        entries[entry + 1] = text.length
        text.appendInt(row)
        text.appendRaw(urlSuffix)
        text.appendRaw(#"","frame":{"x":"#)
        entries[entry + 2] = text.length
        text.appendNumber(y)
        text.appendRaw(#","width":"#)
        entries[entry + 3] = text.length
        text.appendNumber(height)
        text.appendRaw("}}")
        entries[entry + 4] = text.length
    }
}

/// Where one level's shared text and axis entries are.
private struct LevelText {
    let level: Int
    /// `{"level":L,"column":`
    let head: Range<Int>
    /// `,"url":"{prefix}L/`
    let urlHead: Range<Int>
    let firstColumn: Int
    let columnBase: Int
    let firstRow: Int
    let rowBase: Int
}
