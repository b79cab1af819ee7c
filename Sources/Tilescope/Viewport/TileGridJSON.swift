import ScrollGeometry

/// Writes a viewport's tiles as the default answer lists them: each tile as `[level, column, row]`, and its
/// frame once per column and once per row of its level, under `frames`.
///
/// Rule 10 makes a tile's `x` and `width` depend on its level and column only, and `y` and `height` on its
/// level and row only: a retina answer's 117 tiles (the benchmark's median) have a dozen columns and ten rows.
/// Spelling four numbers and eight keys per tile was three quarters of the answer's bytes, and the kernel's
/// copy of those bytes and the writing of them most of what the answer cost beyond a static tile
/// (docs/benchmarks.md, issue 13 goal 2). A client finds a tile's frame in two lookups.
struct TileGridJSON {
    /// The columns and rows of one level that the lists use, contiguous: every tile list of the geometry
    /// (a cover, a ring around it, the next level's cover) is a block of its level's grid.
    struct Block: Equatable {
        let level: Int
        var columns: ClosedRange<Int>
        var rows: ClosedRange<Int>
    }

    /// Levels in the order the lists first use them.
    let blocks: [Block]

    init(drawn: [Tile], prefetched: [Tile]?) {
        var blocks: [Block] = []
        func include(_ tiles: [Tile]) {
            var last = -1  // tiles come level by level: look the level up only when it changes
            for tile in tiles {
                let a = tile.address
                if last < 0 || blocks[last].level != a.level {
                    last = blocks.firstIndex { $0.level == a.level } ?? -1
                    if last < 0 {
                        blocks.append(Block(level: a.level, columns: a.column...a.column, rows: a.row...a.row))
                        last = blocks.count - 1
                        continue
                    }
                }
                let block = blocks[last]
                if !block.columns.contains(a.column) {
                    blocks[last].columns = min(block.columns.lowerBound, a.column)...max(block.columns.upperBound, a.column)
                }
                if !block.rows.contains(a.row) {
                    blocks[last].rows = min(block.rows.lowerBound, a.row)...max(block.rows.upperBound, a.row)
                }
            }
        }
        include(drawn)
        if let prefetched { include(prefetched) }
        self.blocks = blocks
    }

    /// `"key":[[L,C,R],…]`, in the order given.
    static func write(_ tiles: [Tile], key: StaticString, to out: inout ViewportJSON) {
        out.beginArray(key)
        for (index, tile) in tiles.enumerated() {
            out.appendRaw(index == 0 ? "[" : ",[")
            out.appendInt(tile.address.level)
            out.appendRaw(",")
            out.appendInt(tile.address.column)
            out.appendRaw(",")
            out.appendInt(tile.address.row)
            out.appendRaw("]")
        }
        out.endArray()
    }

    /// `"frames":[{"level":L,"columns":[{"column":C,"x":X,"width":W},…],"rows":[{"row":R,"y":Y,"height":H},…]},…]`:
    /// every column and row of every block, ascending, each frame piece computed by rule 10 as `Tile` computes it
    /// (the same integers times the same factor, so bit for bit a tile's `frame`).
    func writeFrames(pyramid: Pyramid, zoomScale: Double, to out: inout ViewportJSON) {
        out.beginArray("frames")
        for block in blocks {
            out.beginObject()
            out.field("level", block.level)
            out.beginArray("columns")
            var last = PrintedSide()
            for column in block.columns {
                let frame = Tile(TileAddress(level: block.level, column: column, row: block.rows.lowerBound),
                                 in: pyramid, zoomScale: zoomScale).frame
                out.appendRaw(column == block.columns.lowerBound ? #"{"column":"# : #",{"column":"#)
                out.appendInt(column)
                out.appendRaw(#","x":"#)
                out.appendNumber(frame.x)
                out.appendRaw(#","width":"#)
                last = last.append(frame.width, to: &out)
                out.appendRaw("}")
            }
            out.endArray()
            out.beginArray("rows")
            last = PrintedSide()
            for row in block.rows {
                let frame = Tile(TileAddress(level: block.level, column: block.columns.lowerBound, row: row),
                                 in: pyramid, zoomScale: zoomScale).frame
                out.appendRaw(row == block.rows.lowerBound ? #"{"row":"# : #",{"row":"#)
                out.appendInt(row)
                out.appendRaw(#","y":"#)
                out.appendNumber(frame.y)
                out.appendRaw(#","height":"#)
                last = last.append(frame.height, to: &out)
                out.appendRaw("}")
            }
            out.endArray()
            out.endObject()
        }
        out.endArray()
    }
}

/// The last width or height printed and where its text is: every inner column of a level is T + 2 O level
/// pixels wide (and every inner row as tall), so most are copies of one printed number.
private struct PrintedSide {
    var bits: UInt64 = 0
    var text: Range<Int> = 0..<0

    func append(_ value: Double, to out: inout ViewportJSON) -> PrintedSide {
        if !text.isEmpty, bits == value.bitPattern {
            out.appendCopy(of: text)
            return self
        }
        let start = out.length
        out.appendNumber(value)
        return PrintedSide(bits: value.bitPattern, text: start..<out.length)
    }
}
