import ScrollGeometry

/// Writes a viewport's tiles as the default answer lists them: each tile as `[level, column, row]`, and its
/// frame once per column and once per row of its level, under `frames`.
///
/// Rule 10 makes a tile's `x` and `width` depend on its level and column only, and `y` and `height` on its
/// level and row only: a retina answer's 117 tiles (the benchmark's median) have a dozen columns and ten rows.
/// Spelling four numbers and eight keys per tile was three quarters of the answer's bytes; listed this way an
/// answer is a fifth of the bytes, for about a tenth less of the server's CPU and more answers a second
/// (docs/benchmarks.md, issue 13 goal 2). A client finds a tile's frame in two lookups.
struct TileGridJSON {
    /// Levels in the order the lists first use them.
    let blocks: [TileBlock]
    private let pieces: Pieces

    init(drawn: [Tile], prefetched: [Tile]?) {
        blocks = TileBlock.blocks(drawn: drawn, prefetched: prefetched)
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
            Self.writeAxis("columns", block.columns, first: #"{"column":"#, next: #",{"column":"#,
                           position: #","x":"#, size: #","width":"#, factor: factor, to: &out) { column in
                let pixels = pyramid.tileRect(level: block.level, column: column, row: block.rows.lowerBound)
                return (pixels.x, pixels.width)
            }
            Self.writeAxis("rows", block.rows, first: #"{"row":"#, next: #",{"row":"#,
                           position: #","y":"#, size: #","height":"#, factor: factor, to: &out) { row in
                let pixels = pyramid.tileRect(level: block.level, column: block.columns.lowerBound, row: row)
                return (pixels.y, pixels.height)
            }
            out.endObject()
        }
        out.endArray()
    }

    /// `"key":[{"column":C,"x":X,"width":W},…]` (or rows' `row`, `y`, `height`): each index's level pixels
    /// (`span`) times `factor`.
    private static func writeAxis(
        _ key: StaticString, _ indices: ClosedRange<Int>, first: StaticString, next: StaticString,
        position: StaticString, size: StaticString, factor: Double, to out: inout ViewportJSON,
        span: (Int) -> (start: Int, length: Int)
    ) {
        out.beginArray(key)
        var last = PrintedSide()
        for index in indices {
            let (start, length) = span(index)
            out.appendRaw(index == indices.lowerBound ? first : next)
            out.appendInt(index)
            out.appendRaw(position)
            out.appendNumber(Double(start) * factor)
            out.appendRaw(size)
            last = last.append(Double(length) * factor, to: &out)
            out.appendRaw("}")
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

    init(_ blocks: [TileBlock]) {
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
