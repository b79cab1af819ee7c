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
    private let pieces: Pieces

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
        pieces = Pieces(blocks)
    }

    /// `"key":[[L,C,R],…]`, in the order given (every tile within `blocks`). A tile is two copies of text
    /// printed once per column (`,[L,C,`) and once per row (`R]`): printing three numbers per tile was most of
    /// the list's cost.
    func write(_ tiles: [Tile], key: StaticString, to out: inout ViewportJSON) {
        out.beginArray(key)
        pieces.bytes.withUnsafeBufferPointer { bytes in
            let text = UnsafeRawPointer(bytes.baseAddress!)
            var block = 0
            for (index, tile) in tiles.enumerated() {
                let a = tile.address
                if blocks[block].level != a.level { block = blocks.firstIndex { $0.level == a.level }! }
                let column = pieces.firstColumn[block] + a.column - blocks[block].columns.lowerBound
                let row = pieces.firstRow[block] + a.row - blocks[block].rows.lowerBound
                let columnStart = pieces.bounds[column] + (index == 0 ? 1 : 0)  // the first tile without its comma
                let columnLength = pieces.bounds[column + 1] - columnStart
                let rowLength = pieces.bounds[row + 1] - pieces.bounds[row]
                out.reserve(extra: columnLength + rowLength + 16)
                out.appendUnchecked(text + columnStart, length: columnLength)
                out.appendUnchecked(text + pieces.bounds[row], length: rowLength)
            }
        }
        out.endArray()
    }

    /// `"frames":[{"level":L,"columns":[{"column":C,"x":X,"width":W},…],"rows":[{"row":R,"y":Y,"height":H},…]},…]`:
    /// every column and row of every block, ascending, each frame piece computed by rule 10 as `Tile` computes it
    /// (the same level pixels times the same factor, so bit for bit a tile's `frame`).
    func writeFrames(pyramid: Pyramid, zoomScale: Double, to out: inout ViewportJSON) {
        out.beginArray("frames")
        for block in blocks {
            // `Tile(_:in:zoomScale:)`'s factor and pixels, computed once per block and once per column or row.
            let factor = zoomScale / pyramid.scale(ofLevel: block.level)
            out.beginObject()
            out.field("level", block.level)
            out.beginArray("columns")
            var last = PrintedSide()
            for column in block.columns {
                let pixels = pyramid.tileRect(level: block.level, column: column, row: block.rows.lowerBound)
                out.appendRaw(column == block.columns.lowerBound ? #"{"column":"# : #",{"column":"#)
                out.appendInt(column)
                out.appendRaw(#","x":"#)
                out.appendNumber(Double(pixels.x) * factor)
                out.appendRaw(#","width":"#)
                last = last.append(Double(pixels.width) * factor, to: &out)
                out.appendRaw("}")
            }
            out.endArray()
            out.beginArray("rows")
            last = PrintedSide()
            for row in block.rows {
                let pixels = pyramid.tileRect(level: block.level, column: block.columns.lowerBound, row: row)
                out.appendRaw(row == block.rows.lowerBound ? #"{"row":"# : #",{"row":"#)
                out.appendInt(row)
                out.appendRaw(#","y":"#)
                out.appendNumber(Double(pixels.y) * factor)
                out.appendRaw(#","height":"#)
                last = last.append(Double(pixels.height) * factor, to: &out)
                out.appendRaw("}")
            }
            out.endArray()
            out.endObject()
        }
        out.endArray()
    }
}

/// The text of every column (`,[L,C,`) and row (`R]`) of the blocks, back to back, for `TileGridJSON.write`.
private struct Pieces {
    /// The pieces, then 16 bytes of slack: `ViewportJSON.appendUnchecked` may read 15 bytes past a piece.
    var bytes: [UInt8] = []
    /// Piece `i` is `bytes[bounds[i]..<bounds[i + 1]]`.
    var bounds: [Int] = [0]
    /// Per block, the index of its first column's piece and of its first row's.
    var firstColumn: [Int] = []
    var firstRow: [Int] = []

    init(_ blocks: [TileGridJSON.Block]) {
        let count = blocks.reduce(0) { $0 + $1.columns.count + $1.rows.count }
        bytes.reserveCapacity(16 * count + 16)  // ",[14,57," is 8 bytes: room for the usual pieces, longer ones grow it
        bounds.reserveCapacity(count + 1)
        for block in blocks {
            firstColumn.append(bounds.count - 1)
            for column in block.columns {
                bytes.append(UInt8(ascii: ","))
                bytes.append(UInt8(ascii: "["))
                digits(block.level)
                bytes.append(UInt8(ascii: ","))
                digits(column)
                bytes.append(UInt8(ascii: ","))
                bounds.append(bytes.count)
            }
            firstRow.append(bounds.count - 1)
            for row in block.rows {
                digits(row)
                bytes.append(UInt8(ascii: "]"))
                bounds.append(bytes.count)
            }
        }
        bytes += repeatElement(0, count: 16)
    }

    /// A level, column or row (never negative) in decimal; not through `String`, whose interpolation cost more
    /// than the whole tile list.
    private mutating func digits(_ value: Int) {
        if value >= 10 { digits(value / 10) }
        bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
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
