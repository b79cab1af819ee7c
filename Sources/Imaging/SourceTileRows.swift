import Foundation
import ScrollGeometry

/// The deepest level's tiles cut from the source's own pixels, read in one pass down the source.
///
/// Why: the deepest level's stored tiles are the source's pixels through one JPEG encoding, and no
/// encoding of those tiles can be closer to the source than they are; one made from the source's
/// pixels can reach the stored tile's picture in fewer bytes (AVIF: about three quarters,
/// docs/api.md#tile-formats). A plain JPEG source has no random access (a crop decodes everything above
/// it), so the tiles wanted are cut from the source's rows read top to bottom, one tile row at a time, with
/// the same conversion the build made (`SourceImage`), so the pixels are the ones
/// dzsave cut the stored tiles from. Memory: the wanted tiles, a chunk of `chunkRows` source rows and
/// the overlap rows carried to the next tile row, never a whole strip of the source (38 MB for a
/// 49152-pixel-wide one); a JPEG is read with libjpeg, which holds a few rows (`SourceRowReaders`).
public final class SourceTileRows {
    /// A tile's pixels, overlap included: 8-bit, interleaved, `bands` per pixel (1 grey, 3 RGB).
    public struct Tile {
        public let column: Int
        public let rect: PixelRect
        public let bands: Int
        public let pixels: [UInt8]

        /// The same pixels with their size (not copied).
        public var picture: PlainPixels {
            PlainPixels(pixels: pixels, width: rect.width, height: rect.height, bands: bands)
        }
    }

    public let pyramid: Pyramid
    private let reader: SourceRowReader
    private let rowBytes: Int
    /// The source rows read so far end here; `carried` holds the last of them (`carriedTop` on), which the
    /// next tile row starts with: a source read forward cannot give them again.
    private var nextLine = 0
    private var carried: [UInt8] = []
    private var carriedTop = 0
    private var chunk: [UInt8] = []
    /// The last tile row read: rows above it need a new reader.
    public private(set) var lastRow = -1

    /// Rows are read a chunk at a time, each copied into the wanted tiles it crosses.
    static let chunkRows = 16

    /// Refuses a source whose size is not the pyramid's (a changed source), and, read by libvips (not a
    /// grey or RGB JPEG), one whose rows are over `maxVipsRowBytes` (libvips caches hundreds of them).
    public init(source: String, pyramid: Pyramid, maxVipsRowBytes: Int = 64 << 10) throws {
        let reader = try SourceRowReaders.open(source, maxVipsRowBytes: maxVipsRowBytes)
        guard reader.width == pyramid.width, reader.height == pyramid.height else {
            throw VipsError(message: "the source is \(reader.width)x\(reader.height), its pyramid \(pyramid.width)x\(pyramid.height)")
        }
        self.reader = reader
        self.pyramid = pyramid
        rowBytes = reader.width * reader.bands
    }

    /// The tiles `columns` of the deepest level's tile row `row`, which must be below the last row read.
    public func tiles(row: Int, columns: [Int]) throws -> [Tile] {
        let level = pyramid.maxLevel
        precondition(row > lastRow && columns.allSatisfy { pyramid.contains(level: level, column: $0, row: row) })
        lastRow = row
        guard !columns.isEmpty else { return [] }
        let band = pyramid.tileRect(level: level, column: 0, row: row), end = band.y + band.height
        let bands = reader.bands
        let rects = columns.map { pyramid.tileRect(level: level, column: $0, row: row) }
        var pixels = rects.map { [UInt8](repeating: 0, count: $0.width * $0.height * bands) }
        let keep = min(band.height, 2 * pyramid.overlap)
        var kept = [UInt8](repeating: 0, count: keep * rowBytes)
        // Copies source row `line` (at `source`) into every tile it crosses, and keeps it if the next tile
        // row starts with it.
        func take(_ source: UnsafePointer<UInt8>, line: Int) {
            for (index, rect) in rects.enumerated() {
                pixels[index].withUnsafeMutableBufferPointer { tile in
                    (tile.baseAddress! + (line - band.y) * rect.width * bands)
                        .update(from: source + rect.x * bands, count: rect.width * bands)
                }
            }
            if line >= end - keep {
                kept.withUnsafeMutableBufferPointer {
                    ($0.baseAddress! + (line - (end - keep)) * rowBytes).update(from: source, count: rowBytes)
                }
            }
        }
        precondition(band.y >= carriedTop || nextLine <= band.y)
        carried.withUnsafeBufferPointer { rows in
            for line in band.y..<max(band.y, min(nextLine, end)) {
                take(rows.baseAddress! + (line - carriedTop) * rowBytes, line: line)
            }
        }
        // Rows of tile rows nobody asked for are read and dropped.
        while nextLine < band.y {
            let count = min(band.y - nextLine, Self.chunkRows)
            try reader.read(count, into: nil)
            nextLine += count
        }
        if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: Self.chunkRows * rowBytes) }
        try chunk.withUnsafeMutableBufferPointer { buffer in
            let start = buffer.baseAddress!
            while nextLine < end {
                let count = min(end - nextLine, Self.chunkRows)
                try reader.read(count, into: start)
                for offset in 0..<count {
                    take(start + offset * rowBytes, line: nextLine + offset)
                }
                nextLine += count
            }
        }
        carried = kept
        carriedTop = end - keep
        return zip(columns, zip(rects, pixels)).map { Tile(column: $0, rect: $1.0, bands: bands, pixels: $1.1) }
    }
}
