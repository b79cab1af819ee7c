import ScrollGeometry

/// Writes a viewport's tiles as the default answer lists them: each tile as `[level, column, row]`, and its
/// frame once per column and once per row of its level, under `frames`.
///
/// Rule 10 makes a tile's `x` and `width` depend on its level and column only, and `y` and `height` on its
/// level and row only: a retina answer's 117 tiles (the benchmark's median) have a dozen columns and ten rows.
/// Spelling four numbers and eight keys per tile was three quarters of the answer's bytes; listed this way an
/// answer is a fifth of the bytes (docs/benchmarks.md), for about a tenth less of the server's CPU and more
/// answers a second (docs/benchmarks-history.md, issue 13 goal 2). A client finds a tile's frame in two lookups.
struct TileGridJSON {
    /// Levels in the order the lists first use them.
    let blocks: [TileBlock]
    private let pieces: Pieces

    /// For tiles drawn from `cover` (all of it) and the `prefetched` ones.
    init(cover: TileCover?, prefetched: [TileAddress]?) {
        blocks = TileBlock.blocks(cover: cover, prefetched: prefetched)
        pieces = Pieces(blocks)
    }

    /// `"key":[[L,C,R],…]`, in the order given (every tile within `blocks`). A tile is two copies of text
    /// printed once per column (`,[L,C,`) and once per row (`R]`): printing three numbers per tile was most of
    /// the list's cost.
    func write(_ tiles: [TileAddress], key: StaticString, to out: inout ViewportJSON) {
        out.beginArray(key)
        // Room for every tile at once, not one check per tile: each of a tile's two pieces is at most
        // `Pieces.maxLength` bytes, copied 16 at a time.
        out.reserve(extra: tiles.count * 2 * Pieces.maxLength + 16)
        pieces.bytes.withUnsafeBufferPointer { bytes in
            pieces.bounds.withUnsafeBufferPointer { bounds in
                let text = UnsafeRawPointer(bytes.baseAddress!)
                // The block's pieces, looked up again only when the level changes (tiles come level by level).
                var level = -1, columnBase = 0, rowBase = 0
                var columns = 0...0, rows = 0...0
                var skip = 1  // the first tile without its comma
                for a in tiles {
                    if a.level != level {
                        let block = blocks.firstIndex { $0.level == a.level }!
                        level = a.level
                        columnBase = pieces.firstColumn[block] - blocks[block].columns.lowerBound
                        rowBase = pieces.firstRow[block] - blocks[block].rows.lowerBound
                        (columns, rows) = (blocks[block].columns, blocks[block].rows)
                    }
                    // The pieces are read unchecked: a tile outside its block would read past them.
                    precondition(columns.contains(a.column) && rows.contains(a.row), "a tile outside its block")
                    let column = columnBase + a.column, row = rowBase + a.row
                    let columnStart = bounds[column] + skip
                    out.appendUnchecked(text + columnStart, length: bounds[column + 1] - columnStart)
                    out.appendUnchecked(text + bounds[row], length: bounds[row + 1] - bounds[row])
                    skip = 0
                }
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
            let size = pyramid.size(ofLevel: block.level)
            out.beginObject()
            out.field("level", block.level)
            Self.writeAxis("columns", block.columns, first: #"{"column":"#, next: #",{"column":"#,
                           position: #","x":"#, size: #","width":"#, factor: factor, to: &out) { column in
                pyramid.tileSpan(index: column, extent: size.width)
            }
            Self.writeAxis("rows", block.rows, first: #"{"row":"#, next: #",{"row":"#,
                           position: #","y":"#, size: #","height":"#, factor: factor, to: &out) { row in
                pyramid.tileSpan(index: row, extent: size.height)
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
    /// The pieces, then at least 16 bytes of slack: `ViewportJSON.appendUnchecked` may read 15 bytes past a piece.
    var bytes: [UInt8]
    /// Piece `i` is `bytes[bounds[i]..<bounds[i + 1]]`.
    var bounds: [Int]
    /// Per block, the index of its first column's piece and of its first row's.
    var firstColumn: [Int]
    var firstRow: [Int]
    /// The longest a piece can be: `,[63,4294967295,` (levels are below 64, columns and rows below 2^32).
    static let maxLength = 16

    init(_ blocks: [TileBlock]) {
        let count = blocks.reduce(0) { $0 + $1.columns.count + $1.rows.count }
        // At most `maxLength` bytes a piece, then 16 bytes of slack: written through a pointer, where appending
        // byte by byte to the array cost a check per byte.
        var bytes = [UInt8](repeating: 0, count: Self.maxLength * count + 16)
        var bounds = [Int](repeating: 0, count: count + 1)
        var firstColumn: [Int] = [], firstRow: [Int] = []
        var piece = 0
        bytes.withUnsafeMutableBufferPointer { bytes in
            bounds.withUnsafeMutableBufferPointer { bounds in
                var end = 0
                func close() {
                    piece += 1
                    bounds[piece] = end
                }
                for block in blocks {
                    precondition(block.level < 64, "a level past a pyramid's 63")  // two digits: `maxLength` holds
                    firstColumn.append(piece)
                    for column in block.columns {
                        bytes[end] = UInt8(ascii: ","); bytes[end + 1] = UInt8(ascii: "[")
                        end = Self.digits(block.level, into: bytes, at: end + 2)
                        bytes[end] = UInt8(ascii: ",")
                        end = Self.digits(column, into: bytes, at: end + 1)
                        bytes[end] = UInt8(ascii: ",")
                        end += 1
                        close()
                    }
                    firstRow.append(piece)
                    for row in block.rows {
                        end = Self.digits(row, into: bytes, at: end)
                        bytes[end] = UInt8(ascii: "]")
                        end += 1
                        close()
                    }
                }
            }
        }
        (self.bytes, self.bounds, self.firstColumn, self.firstRow) = (bytes, bounds, firstColumn, firstRow)
    }

    /// A level, column or row (never negative, below 2^32) in decimal at `start`; returns where it ends. Not
    /// through `String`, whose interpolation cost more than the whole tile list.
    private static func digits(_ value: Int, into bytes: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        precondition(value >= 0 && value < 1 << 32)
        var length = 1, probe = value
        while probe >= 10 {
            probe /= 10
            length += 1
        }
        var rest = value, index = start + length
        repeat {
            index -= 1
            bytes[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        return start + length
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
