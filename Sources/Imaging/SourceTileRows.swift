import CShims
import CVips
import Foundation
import ScrollGeometry

/// The deepest level's tiles cut from the source's own pixels, read in one pass down the source.
///
/// Why: the deepest level's stored tiles are the source's pixels through one JPEG encoding, and no
/// encoding of those tiles can be closer to the source than they are; one made from the source's
/// pixels can reach the stored tile's picture in fewer bytes (AVIF: about three quarters,
/// docs/iiif.md#formats). A plain JPEG source has no random access (a crop decodes everything above
/// it), so the tiles wanted are cut from strips read top to bottom, one tile row at a time, with
/// the same conversion the build made (`PyramidBuilder.displayable`), so the pixels are the ones
/// dzsave cut the stored tiles from.
public final class SourceTileRows {
    /// A tile's pixels, overlap included: 8-bit, interleaved, `bands` per pixel (1 grey, 3 RGB).
    public struct Tile {
        public let column: Int
        public let rect: PixelRect
        public let bands: Int
        public let pixels: [UInt8]
    }

    public let pyramid: Pyramid
    private let image: VImage
    /// Reads the source's rows strictly forward (`ts_region_read_rows`): a sequential source refuses a
    /// row it has passed, even the two overlap rows a tile row shares with the one above it.
    private let region: UnsafeMutablePointer<VipsRegion>
    private let rowBytes: Int
    /// The source rows read so far end here; `carried` holds the last of them (`carriedTop` on), which the
    /// next tile row's strip may start with.
    private var nextLine = 0
    private var carried: [UInt8] = []
    private var carriedTop = 0
    /// The last tile row read: rows above it need a new reader.
    public private(set) var lastRow = -1

    /// Refuses a source whose size is not the pyramid's (a changed source), and a strip of more than
    /// `maxStripBytes` (a very wide source: its strips would hold too much memory at once).
    public init(source: String, pyramid: Pyramid, maxStripBytes: Int = 256 << 20) throws {
        try Vips.start()
        let image = try PyramidBuilder.displayable(VImage.open(source, sequential: true, strict: true))
        guard image.width == pyramid.width, image.height == pyramid.height else {
            throw VipsError(message: "the source is \(image.width)x\(image.height), its pyramid \(pyramid.width)x\(pyramid.height)")
        }
        let stripHeight = pyramid.tileSize + 2 * pyramid.overlap
        guard image.width <= maxStripBytes / max(1, stripHeight * image.bands) else {
            throw VipsError(message: "a strip of the source would hold more than \(maxStripBytes) bytes")
        }
        guard let region = vips_region_new(image.pointer) else { throw VipsError.take(or: "cannot read the source") }
        self.image = image
        self.region = region
        self.pyramid = pyramid
        rowBytes = image.width * image.bands
    }

    deinit { g_object_unref(region) }

    /// The tiles `columns` of the deepest level's tile row `row`, which must be below the last row read.
    public func tiles(row: Int, columns: [Int]) throws -> [Tile] {
        let level = pyramid.maxLevel
        precondition(row > lastRow && columns.allSatisfy { pyramid.contains(level: level, column: $0, row: row) })
        lastRow = row
        guard !columns.isEmpty else { return [] }
        let band = pyramid.tileRect(level: level, column: 0, row: row)
        let strip = try rows(from: band.y, count: band.height)
        let bands = image.bands
        return columns.map { column in
            let rect = pyramid.tileRect(level: level, column: column, row: row)
            var pixels = [UInt8]()
            pixels.reserveCapacity(rect.width * rect.height * bands)
            for y in 0..<rect.height {
                let start = y * rowBytes + rect.x * bands
                pixels.append(contentsOf: strip[start..<(start + rect.width * bands)])
            }
            return Tile(column: column, rect: rect, bands: bands, pixels: pixels)
        }
    }

    /// Source rows `top` to `top + count`, every column: those carried from the last strip, then new ones.
    private func rows(from top: Int, count: Int) throws -> [UInt8] {
        precondition(top >= carriedTop || nextLine <= top)
        var strip = [UInt8](repeating: 0, count: count * rowBytes)
        var filled = 0
        if top < nextLine {
            let carriedRows = carried[((top - carriedTop) * rowBytes)...]
            strip.replaceSubrange(0..<carriedRows.count, with: carriedRows)
            filled = carriedRows.count / rowBytes
        }
        if nextLine < top {
            // Rows of tile rows nobody asked for are read and dropped.
            var scratch = [UInt8](repeating: 0, count: min(top - nextLine, Self.chunkRows) * rowBytes)
            while nextLine < top {
                try scratch.withUnsafeMutableBufferPointer { try read(min(top - nextLine, Self.chunkRows), into: $0.baseAddress!) }
            }
        }
        try strip.withUnsafeMutableBufferPointer { buffer in
            while filled < count {
                let rows = min(count - filled, Self.chunkRows)
                try read(rows, into: buffer.baseAddress! + filled * rowBytes)
                filled += rows
            }
        }
        let keep = min(count, 2 * pyramid.overlap)
        carried = Array(strip[((count - keep) * rowBytes)...])
        carriedTop = top + count - keep
        return strip
    }

    /// Rows are computed a few at a time: libvips holds a buffer of the rows asked for at once, beside the
    /// strip (a 49152-pixel-wide source's 256-row strip is 38 MB; its 64-row buffer, 9 MB).
    static let chunkRows = 64

    /// The next `count` rows of the source, into `out`.
    private func read(_ count: Int, into out: UnsafeMutablePointer<UInt8>) throws {
        guard ts_region_read_rows(region, Int32(nextLine), Int32(count), out) == 0 else {
            throw VipsError.take(or: "cannot read rows \(nextLine) to \(nextLine + count) of the source")
        }
        nextLine += count
    }
}
