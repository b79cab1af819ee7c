import ScrollGeometry

/// Writes a viewport's tile list, formatting each column's and each row's numbers once.
///
/// Rule 10 makes a tile's `x` and `width` depend on its level and column only, and `y` and `height` on its
/// level and row only, and a URL (with `tileURLs`) repeats the same column and row digits. A retina viewport lists a
/// hundred or more tiles from a dozen columns and rows, so printing every number of every tile (four
/// shortest-form doubles and five integers each) was most of the answer's cost; here a tile is a
/// sequence of copies of text written once per column and once per row.
struct TileListJSON: ~Copyable {
    /// Every piece of text, back to back: the columns' and the rows' pieces.
    private var text = ViewportJSON(capacity: 4096)
    private var levels: [LevelEntries] = []
    /// Per axis entry (a column or a row of a level), `Self.stride` offsets into `text`: where its text
    /// starts and where each of its four pieces ends; the start is -1 until the entry is filled.
    private var entries: [Int] = []
    /// The tile URL's pieces around `L/C_R` when tiles carry their URL (`tileURLs`), else `nil`.
    private let urls: (prefix: [UInt8], suffix: [UInt8])?
    private static let stride = 5
    /// The last width and height printed, and where their text is. Every inner column is T + 2 O level
    /// pixels wide and every inner row as tall, so most widths and heights are copies of one printed number.
    private var lastWidth = PrintedNumber()
    private var lastHeight = PrintedNumber()

    /// Room for every column and row that `drawn` and `prefetched` use.
    init(urls: (prefix: [UInt8], suffix: [UInt8])?, drawn: [Tile], prefetched: [Tile]?) {
        self.urls = urls
        for block in TileBlock.blocks(drawn: drawn, prefetched: prefetched) {
            let columnBase = entries.count / Self.stride
            let rowBase = columnBase + block.columns.count
            entries += Array(repeating: -1, count: Self.stride * (block.columns.count + block.rows.count))
            levels.append(LevelEntries(level: block.level, firstColumn: block.columns.lowerBound, columnBase: columnBase,
                                       firstRow: block.rows.lowerBound, rowBase: rowBase))
        }
    }

    /// `[{"level":L,"column":C,"row":R,"frame":{"x":X,"y":Y,"width":W,"height":H}},…]`, with
    /// `"url":"…"` before `"frame"` when tiles carry their URL.
    ///
    /// A tile is eight copies, column and row pieces in turn: `{"level":L,"column":C` `,"row":R`
    /// `,"url":"…/L/C_` `R….jpeg?v=…","frame":{"x":` `X,"y":` `Y,"width":` `W,"height":` `H}}`. Without
    /// URLs the column's second piece is empty and the row's is `,"frame":{"x":`, right after its first in
    /// `text`: six copies, the row's first two as one.
    mutating func write(_ tiles: [Tile], key: StaticString, to out: inout ViewportJSON) {
        // Fill first: the copying below reads `text` through one pointer, which filling would move.
        // Per tile: the offsets of its column's and row's entries.
        var placed: [(column: Int, row: Int)] = []
        placed.reserveCapacity(tiles.count)
        var group = 0
        for tile in tiles {
            let a = tile.address
            if levels[group].level != a.level { group = levels.firstIndex { $0.level == a.level }! }
            let level = levels[group]
            let column = Self.stride * (level.columnBase + a.column - level.firstColumn)
            let row = Self.stride * (level.rowBase + a.row - level.firstRow)
            if entries[column] < 0 { fillColumn(column, a.level, a.column, x: tile.frame.x, width: tile.frame.width) }
            if entries[row] < 0 { fillRow(row, a.row, y: tile.frame.y, height: tile.frame.height) }
            placed.append((column, row))
        }
        text.appendRaw("0123456789abcdef")  // readable slack after the last piece, for `appendUnchecked`
        out.beginArray(key)
        // Raw pointers and wrapping arithmetic: every offset below was written by `fillColumn`/`fillRow` into
        // `text`, so the checks the arrays would make per copy (sixteen per tile) cannot fail; they were a
        // third of this loop's time.
        text.withUnsafeBytes { text in
            entries.withUnsafeBufferPointer { entries in
                placed.withUnsafeBufferPointer { placed in
                    let text = text.baseAddress!, e = entries.baseAddress!
                    if urls == nil {
                        for index in 0..<placed.count {
                            let c = placed[index].column, r = placed[index].row
                            if index > 0 { out.appendRaw(",") }
                            out.reserve(extra: 16 &+ e[c &+ 4] &- e[c] &+ e[r &+ 4] &- e[r])
                            out.appendUnchecked(text + e[c], length: e[c &+ 1] &- e[c])
                            out.appendUnchecked(text + e[r], length: e[r &+ 2] &- e[r])
                            out.appendUnchecked(text + e[c &+ 2], length: e[c &+ 3] &- e[c &+ 2])
                            out.appendUnchecked(text + e[r &+ 2], length: e[r &+ 3] &- e[r &+ 2])
                            out.appendUnchecked(text + e[c &+ 3], length: e[c &+ 4] &- e[c &+ 3])
                            out.appendUnchecked(text + e[r &+ 3], length: e[r &+ 4] &- e[r &+ 3])
                        }
                        return
                    }
                    for index in 0..<placed.count {
                        let c = placed[index].column, r = placed[index].row
                        if index > 0 { out.appendRaw(",") }
                        out.reserve(extra: 16 &+ e[c &+ 4] &- e[c] &+ e[r &+ 4] &- e[r])
                        out.appendUnchecked(text + e[c], length: e[c &+ 1] &- e[c])
                        out.appendUnchecked(text + e[r], length: e[r &+ 1] &- e[r])
                        out.appendUnchecked(text + e[c &+ 1], length: e[c &+ 2] &- e[c &+ 1])
                        out.appendUnchecked(text + e[r &+ 1], length: e[r &+ 2] &- e[r &+ 1])
                        out.appendUnchecked(text + e[c &+ 2], length: e[c &+ 3] &- e[c &+ 2])
                        out.appendUnchecked(text + e[r &+ 2], length: e[r &+ 3] &- e[r &+ 2])
                        out.appendUnchecked(text + e[c &+ 3], length: e[c &+ 4] &- e[c &+ 3])
                        out.appendUnchecked(text + e[r &+ 3], length: e[r &+ 4] &- e[r &+ 3])
                    }
                }
            }
        }
        out.endArray()
    }

    /// `{"level":L,"column":C` `,"url":"{prefix}L/C_` (empty without URLs) `X,"y":` `W,"height":`
    private mutating func fillColumn(_ entry: Int, _ level: Int, _ column: Int, x: Double, width: Double) {
        entries[entry] = text.length
        text.appendRaw(#"{"level":"#)
        text.appendInt(level)
        text.appendRaw(#","column":"#)
        text.appendInt(column)
        entries[entry + 1] = text.length
        if let urls {
            text.appendRaw(#","url":""#)
            text.appendRaw(urls.prefix)
            text.appendInt(level)
            text.appendRaw("/")
            text.appendInt(column)
            text.appendRaw("_")
        }
        entries[entry + 2] = text.length
        text.appendNumber(x)
        text.appendRaw(#","y":"#)
        entries[entry + 3] = text.length
        lastWidth = append(width, reusing: lastWidth)
        text.appendRaw(#","height":"#)
        entries[entry + 4] = text.length
    }

    /// `,"row":R` `R{suffix}","frame":{"x":` (`,"frame":{"x":` without URLs) `Y,"width":` `H}}`
    private mutating func fillRow(_ entry: Int, _ row: Int, y: Double, height: Double) {
        entries[entry] = text.length
        text.appendRaw(#","row":"#)
        text.appendInt(row)
        entries[entry + 1] = text.length
        if let urls {
            text.appendInt(row)
            text.appendRaw(urls.suffix)
            text.appendRaw(#"","#)
        } else {
            text.appendRaw(",")
        }
        text.appendRaw(#""frame":{"x":"#)
        entries[entry + 2] = text.length
        text.appendNumber(y)
        text.appendRaw(#","width":"#)
        entries[entry + 3] = text.length
        lastHeight = append(height, reusing: lastHeight)
        text.appendRaw("}}")
        entries[entry + 4] = text.length
    }

    /// `value` as `ViewportJSON.appendNumber` prints it: copied when it is the number printed last time.
    private mutating func append(_ value: Double, reusing last: PrintedNumber) -> PrintedNumber {
        if last.text.count > 0, last.bits == value.bitPattern {
            text.appendCopy(of: last.text)
            return last
        }
        let start = text.length
        text.appendNumber(value)
        return PrintedNumber(bits: value.bitPattern, text: start..<text.length)
    }
}

/// A number printed into the tile list's text: its bits (so 0 and -0 differ) and where its text is.
private struct PrintedNumber {
    var bits: UInt64 = 0
    var text: Range<Int> = 0..<0
}

/// Where one level's column and row entries are.
private struct LevelEntries {
    let level: Int
    let firstColumn: Int
    let columnBase: Int
    let firstRow: Int
    let rowBase: Int
}
