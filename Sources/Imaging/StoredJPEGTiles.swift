import Foundation

/// A TIFF level's tiles as the JPEGs they are stored as, so that an answer which is exactly one of them can be
/// sent without decoding and encoding it again (what IIPImage calls passing the codec through).
///
/// Only where the stored JPEG shows what libvips would read: new-style JPEG (compression 7) of 8-bit RGB or
/// YCbCr in one plane, without an ICC profile (whose pixels an answer converts to sRGB). A tile is stored as an
/// abbreviated JPEG: the file's JPEGTables (quantisation and Huffman tables between an SOI and an EOI) go in
/// front of the tile's own data. A tile of RGB samples (photometric 2) gets an Adobe marker saying that its
/// samples are not YCbCr, which decoders otherwise assume.
public struct StoredJPEGTiles: Sendable, Equatable {
    let tilesAcross: Int
    let tilesDown: Int
    let offsets: TIFFValues
    let byteCounts: TIFFValues
    /// The JPEGTables between their SOI and EOI, read when the file was probed; nil when the tiles are whole JPEGs.
    let tables: ArraySlice<UInt8>?
    let samplesAreRGB: Bool

    /// Larger than any real tile's JPEG: a byte count beyond it is a damaged or hostile file's.
    static let maximumTileBytes = 16 << 20
    static let maximumTableBytes = 1 << 16

    /// nil for a directory whose tiles cannot be sent as they are.
    init?(_ directory: TIFFDirectory) {
        guard directory.hasJPEGTiles, let tileWidth = directory.tileWidth, let tileHeight = directory.tileHeight,
              tileWidth > 0, tileHeight > 0, directory.photometric == 2 || directory.photometric == 6,
              directory.samplesPerPixel == 3, directory.bitsPerSample == 8, directory.planarConfiguration == 1,
              !directory.hasICCProfile, let offsets = directory.tileOffsets, let byteCounts = directory.tileByteCounts,
              offsets.size >= 2, byteCounts.size >= 2
        else { return nil }
        tilesAcross = (directory.width + tileWidth - 1) / tileWidth
        tilesDown = (directory.height + tileHeight - 1) / tileHeight
        guard offsets.count >= tilesAcross * tilesDown, byteCounts.count >= tilesAcross * tilesDown else { return nil }
        if directory.jpegTables != nil {
            guard let bytes = directory.jpegTableBytes, bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8,
                  bytes[bytes.count - 2] == 0xFF, bytes[bytes.count - 1] == 0xD9 else { return nil }
            tables = bytes[2..<(bytes.count - 2)]
        } else {
            tables = nil
        }
        self.offsets = offsets
        self.byteCounts = byteCounts
        samplesAreRGB = directory.photometric == 2
    }

    /// The tile at `column`, `row` as a whole JPEG, its data read from `file` (the tables are kept); nil when its bytes are not a JPEG's (a
    /// missing tile, a damaged file): the caller then decodes the level as for any other answer.
    func jpeg(column: Int, row: Int, in file: SourceFile) throws -> [UInt8]? {
        guard column >= 0, row >= 0, column < tilesAcross, row < tilesDown else { return nil }
        let index = row * tilesAcross + column
        let start = try file.integer(offsets, index), length = try file.integer(byteCounts, index)
        guard start > 0, length >= 4, length <= UInt64(Self.maximumTileBytes) else { return nil }
        let data = try file.bytes(at: start, count: Int(length))
        guard data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(data.count + (tables?.count ?? 0) + 16)
        if samplesAreRGB { out += Self.adobeRGBMarker }
        if let tables { out += tables }
        out += data[2...]
        return out
    }

    /// APP14 "Adobe", version 100, no flags, colour transform 0: the three samples are RGB as they are.
    static let adobeRGBMarker: [UInt8] = [0xFF, 0xEE, 0x00, 0x0E, 0x41, 0x64, 0x6F, 0x62, 0x65, 0x00, 0x64,
                                          0x00, 0x00, 0x00, 0x00, 0x00]
}

