import Foundation

/// One directory (IFD) of a TIFF: the tags that say whether it is a pyramid level and how its pixels are stored.
struct TIFFDirectory: Equatable, Sendable {
    var width: Int
    var height: Int
    /// nil for a directory stored in strips.
    var tileWidth: Int?
    var tileHeight: Int?
    /// TIFF's Compression code: 1 none, 7 JPEG, 8 deflate, 33003 Aperio's JPEG 2000...
    var compression: Int
    var orientation: Int
    /// ResolutionUnit: 1 none, 2 inch, 3 centimetre; 0 when the tag is absent (TIFF then means inch, but a
    /// writer that did not say may not have meant anything either).
    var resolutionUnit: Int
    var xResolution: Double?
    var yResolution: Double?
    /// PhotometricInterpretation: 1 grey, 2 RGB, 6 YCbCr...; 0 when absent.
    var photometric = 0
    var samplesPerPixel = 1
    /// The first sample's bits (TIFF allows each its own; a JPEG tile has one for all).
    var bitsPerSample = 1
    /// 1: a pixel's samples together; 2: a plane a sample.
    var planarConfiguration = 1
    /// An ICC profile is embedded (tag 34675): pixels then need converting to be shown as sRGB.
    var hasICCProfile = false
    /// Where each tile's bytes are (TileOffsets, TileByteCounts), and the JPEG tables every tile shares.
    var tileOffsets: TIFFValues?
    var tileByteCounts: TIFFValues?
    var jpegTables: TIFFValues?
    /// The JPEGTables' bytes, read with the directory (at most `StoredJPEGTiles.maximumTableBytes`): every stored
    /// tile sent as it is needs them, so they are read once, not once a request.
    var jpegTableBytes: [UInt8]?

    var isTiled: Bool { tileWidth != nil && tileHeight != nil }
    /// Tiles that are JPEGs of their own (new-style, code 7), which a tile answer could send undecoded.
    var hasJPEGTiles: Bool { isTiled && compression == 7 }
}

/// Where the values of a tag are in the file: `count` values of `size` bytes each, from `offset` (inside the
/// directory entry itself when they fit there), in the file's byte order. Read when needed, not with the
/// directory: a large level has hundreds of thousands of tile offsets.
struct TIFFValues: Equatable, Sendable {
    var offset: UInt64
    var count: Int
    var size: Int
    var littleEndian: Bool
}

/// The directories of a TIFF or BigTIFF file, read from its tags without decoding any pixels.
///
/// Why not libvips: its 8.14 tiffload says how large a page is, but not whether it is tiled, its tile size,
/// its compression or its SubIFDs' sizes, and those decide whether a file is a pyramid (a striped page is a
/// label or a thumbnail, not a level) and whether its tiles could later be passed through as JPEG.
/// Bounded for hostile files: at most `maximumPages` pages and as many SubIFDs, `maximumEntries` tags a
/// directory, and a chain of directories that loops back ends there.
struct TIFFLayout: Sendable {
    /// The main chain of directories: libvips's `page=0...`.
    var pages: [TIFFDirectory]
    /// The first page's SubIFDs, in order: libvips's `subifd=0...`.
    var subIFDs: [TIFFDirectory]

    static let maximumPages = 64
    static let maximumEntries = 1024
    /// Larger than any image libvips opens (its limit is 10 million pixels a side), small enough that no count
    /// of tiles or pixels derived from it overflows.
    static let maximumSide = 1 << 31
    static let tileSides = 16...65536
    /// Offsets beyond this are not in any file (and adding a directory's size to one cannot overflow).
    static let maximumOffset = UInt64(1) << 60

    /// nil when the file does not start like a TIFF or BigTIFF.
    static func read(_ source: SourceFile) throws -> TIFFLayout? {
        guard let file = try TIFFFile(source) else { return nil }
        var pages: [TIFFDirectory] = []
        var subIFDOffsets: [UInt64] = []
        var seen: Set<UInt64> = []
        var offset = file.firstDirectory
        while offset != 0, pages.count < maximumPages, seen.insert(offset).inserted {
            let entry = try file.directory(at: offset)
            if pages.isEmpty { subIFDOffsets = entry.subIFDs }
            pages.append(entry.directory)
            offset = entry.next
        }
        guard !pages.isEmpty else { throw TIFFLayoutError("a TIFF without directories") }
        let subIFDs = try subIFDOffsets.prefix(maximumPages).map { try file.directory(at: $0).directory }
        return TIFFLayout(pages: pages, subIFDs: subIFDs)
    }
}

struct TIFFLayoutError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TIFF's bytes as its header says to read them: byte order, classic (32-bit offsets) or BigTIFF (64-bit).
private struct TIFFFile {
    let source: SourceFile
    let littleEndian: Bool
    let isBig: Bool
    let firstDirectory: UInt64

    /// nil when the first bytes are not a TIFF's.
    init?(_ source: SourceFile) throws {
        self.source = source
        let header = try source.prefix(at: 0, count: 16)
        let got = header.count
        guard got >= 8 else { return nil }
        switch (header[0], header[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        let magic = Self.integer(header[2..<4], littleEndian: littleEndian)
        switch magic {
        case 42:
            isBig = false
            firstDirectory = Self.integer(header[4..<8], littleEndian: littleEndian)
        case 43 where got == 16:
            isBig = true
            firstDirectory = Self.integer(header[8..<16], littleEndian: littleEndian)
        default:
            return nil
        }
    }

    /// One directory, the offset of the next one (0: none) and of its SubIFDs.
    func directory(at offset: UInt64) throws -> (directory: TIFFDirectory, next: UInt64, subIFDs: [UInt64]) {
        let countSize = isBig ? 8 : 2, entrySize = isBig ? 20 : 12, offsetSize = isBig ? 8 : 4
        // Every number read from the file is bounded before any arithmetic: a trap would take the server down.
        guard offset <= TIFFLayout.maximumOffset else { throw TIFFLayoutError("a TIFF directory at offset \(offset)") }
        let count = Int(clamping: integer(try bytes(at: offset, count: countSize)[...]))
        guard count > 0, count <= TIFFLayout.maximumEntries else {
            throw TIFFLayoutError("a TIFF directory of \(count) entries")
        }
        let table = try bytes(at: offset + UInt64(countSize), count: count * entrySize + offsetSize)
        var directory = TIFFDirectory(width: 0, height: 0, compression: 1, orientation: 1, resolutionUnit: 0)
        var subIFDs: [UInt64] = []
        for index in 0..<count {
            let entry = table[(index * entrySize)..<((index + 1) * entrySize)]
            let entryOffset = offset + UInt64(countSize + index * entrySize)
            let tag = integer(entry.prefix(2))
            switch tag {
            case 258: directory.bitsPerSample = Int(clamping: try values(of: entry).first ?? 1)
            case 262: directory.photometric = Int(clamping: try values(of: entry).first ?? 0)
            case 277: directory.samplesPerPixel = Int(clamping: try values(of: entry).first ?? 1)
            case 284: directory.planarConfiguration = Int(clamping: try values(of: entry).first ?? 1)
            case 324: directory.tileOffsets = location(of: entry, at: entryOffset)
            case 325: directory.tileByteCounts = location(of: entry, at: entryOffset)
            case 347: directory.jpegTables = location(of: entry, at: entryOffset)
            case 34675: directory.hasICCProfile = true
            case 256: directory.width = Int(clamping: try values(of: entry).first ?? 0)
            case 257: directory.height = Int(clamping: try values(of: entry).first ?? 0)
            case 259: directory.compression = Int(clamping: try values(of: entry).first ?? 1)
            case 274: directory.orientation = Int(clamping: try values(of: entry).first ?? 1)
            case 282: directory.xResolution = try rational(of: entry)
            case 283: directory.yResolution = try rational(of: entry)
            case 296: directory.resolutionUnit = Int(clamping: try values(of: entry).first ?? 0)
            case 322: directory.tileWidth = try values(of: entry).first.map { Int(clamping: $0) }
            case 323: directory.tileHeight = try values(of: entry).first.map { Int(clamping: $0) }
            case 330: subIFDs = try values(of: entry, limit: TIFFLayout.maximumPages)
            default: break
            }
        }
        guard directory.width > 0, directory.height > 0 else { throw TIFFLayoutError("a TIFF directory without a size") }
        guard directory.width <= TIFFLayout.maximumSide, directory.height <= TIFFLayout.maximumSide else {
            throw TIFFLayoutError("a TIFF directory of \(directory.width)x\(directory.height) pixels")
        }
        // TIFF's tiles are multiples of 16 a side; anything else is not a tile grid to trust.
        if let width = directory.tileWidth, let height = directory.tileHeight,
           !TIFFLayout.tileSides.contains(width) || !TIFFLayout.tileSides.contains(height) {
            directory.tileWidth = nil
            directory.tileHeight = nil
        }
        if let tables = directory.jpegTables, tables.size == 1, tables.count <= StoredJPEGTiles.maximumTableBytes {
            // A table that cannot be read only stops its tiles from being sent as stored (`StoredJPEGTiles`).
            directory.jpegTableBytes = try? bytes(at: tables.offset, count: tables.count)
        }
        let next = integer(table.suffix(offsetSize))
        return (directory, next, subIFDs)
    }

    /// Where an entry's values are (`TIFFValues`), for types BYTE, UNDEFINED, SHORT, LONG, LONG8 and IFD(8);
    /// nil for other types. `entryOffset` is the entry's own place in the file.
    private func location(of entry: ArraySlice<UInt8>, at entryOffset: UInt64) -> TIFFValues? {
        let size: Int
        switch integer(entry.dropFirst(2).prefix(2)) {
        case 1, 7: size = 1
        case 3: size = 2
        case 4, 13: size = 4
        case 16, 18: size = 8
        default: return nil
        }
        let count = integer(entry.dropFirst(4).prefix(isBig ? 8 : 4))
        guard count > 0, count <= 1 << 40 else { return nil }
        let fieldOffset = UInt64(isBig ? 12 : 8), fieldSize = isBig ? 8 : 4
        let inline = count * UInt64(size) <= UInt64(fieldSize)
        let field = entry.dropFirst(Int(fieldOffset))
        return TIFFValues(offset: inline ? entryOffset + fieldOffset : integer(field), count: Int(count), size: size,
                          littleEndian: littleEndian)
    }

    /// The integer values of an entry of type BYTE, SHORT, LONG, LONG8, IFD or IFD8 (empty for other types),
    /// at most `limit` of them.
    private func values(of entry: ArraySlice<UInt8>, limit: Int = 1) throws -> [UInt64] {
        let type = integer(entry.dropFirst(2).prefix(2))
        let size: Int
        switch type {
        case 1: size = 1
        case 3: size = 2
        case 4, 13: size = 4
        case 16, 18: size = 8
        default: return []
        }
        // The declared count decides where the value is; only the first `limit` values are read.
        let declared = Int(min(integer(entry.dropFirst(4).prefix(isBig ? 8 : 4)), 1 << 32))
        let count = min(limit, declared)
        guard count > 0 else { return [] }
        let data = try valueBytes(of: entry, byteCount: count * size, declaredBytes: declared * size)
        return (0..<count).map { integer(data[(data.startIndex + $0 * size)..<(data.startIndex + ($0 + 1) * size)]) }
    }

    /// The first value of a RATIONAL entry, nil for another type or a zero denominator.
    private func rational(of entry: ArraySlice<UInt8>) throws -> Double? {
        guard integer(entry.dropFirst(2).prefix(2)) == 5 else { return nil }
        let data = try valueBytes(of: entry, byteCount: 8, declaredBytes: 8)
        let numerator = integer(data.prefix(4)), denominator = integer(data.suffix(4))
        return denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    /// The first `byteCount` bytes of an entry's value: in the entry itself when the whole value fits there
    /// (`declaredBytes`), else at the offset it holds.
    private func valueBytes(of entry: ArraySlice<UInt8>, byteCount: Int, declaredBytes: Int) throws -> ArraySlice<UInt8> {
        let field = entry.dropFirst(isBig ? 12 : 8)
        if declaredBytes <= field.count { return field.prefix(byteCount) }
        return try bytes(at: integer(field), count: byteCount)[...]
    }

    private func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard offset < UInt64(Int64.max) else { throw TIFFLayoutError("a TIFF offset out of range") }
        do {
            return try source.bytes(at: offset, count: count)
        } catch let error as TIFFLayoutError where error.description.hasPrefix("the file is cut short") {
            throw TIFFLayoutError("a TIFF cut short at offset \(offset)")
        }
    }

    private func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 { Self.integer(bytes, littleEndian: littleEndian) }

    static func integer(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> UInt64 {
        let ordered = littleEndian ? Array(bytes.reversed()) : Array(bytes)
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
