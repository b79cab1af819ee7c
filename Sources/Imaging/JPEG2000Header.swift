import Foundation

/// What a JPEG 2000 file's codestream header (its SIZ and COD markers) says: the image's size and offset on
/// the reference grid, its tile grid and how many resolution levels it holds, read without OpenJPEG.
///
/// Why not from libvips's header: jp2kload's header is OpenJPEG's, which sets up every tile of the codestream
/// before a pixel is asked for (measured here: 160 ms and 190 MB for 33000x32000 in 256-pixel tiles, about
/// 12 KB a tile, again for each level opened). A probe that only asks whether the file is a pyramid, and how
/// much opening a level of it would cost, reads these few bytes instead.
struct JPEG2000Header: Equatable, Sendable {
    /// The image area on the reference grid: `x0 ..< x1`, `y0 ..< y1`.
    var x0: Int, y0: Int, x1: Int, y1: Int
    var tileWidth: Int, tileHeight: Int
    var tilesAcross: Int, tilesDown: Int
    /// Resolution levels: the full image and each halving of it (decomposition levels + 1).
    var resolutions: Int

    var width: Int { x1 - x0 }
    var height: Int { y1 - y0 }

    /// The size of resolution level `reduction` (the full image halved that many times), as OpenJPEG and so
    /// libvips's `jp2kload page=` give it: each edge of the area divided by 2^reduction, rounded up.
    func size(reduction: Int) -> (width: Int, height: Int) {
        func ceilShift(_ value: Int) -> Int { (value + (1 << reduction) - 1) >> reduction }
        return (ceilShift(x1) - ceilShift(x0), ceilShift(y1) - ceilShift(y0))
    }

    /// Boxes and markers walked at most, in a hostile file.
    static let maximumSteps = 64

    /// nil when the file is neither a JP2 file nor a bare codestream, or its header is damaged.
    static func read(_ path: String) -> JPEG2000Header? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let start = codestreamStart(handle) else { return nil }
        return parse(handle, from: start)
    }

    /// Where the codestream starts: 0 for a bare one (.j2k), else inside the JP2 file's `jp2c` box.
    private static func codestreamStart(_ handle: FileHandle) -> UInt64? {
        guard let first = read(handle, at: 0, count: 12), first.count == 12 else { return nil }
        if first.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return 0 }
        guard first == [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] else { return nil }
        var offset: UInt64 = 12
        for _ in 0..<maximumSteps {
            guard let box = read(handle, at: offset, count: 16), box.count >= 8 else { return nil }
            var length = UInt64(bigEndian: box[0..<4])
            var headerSize: UInt64 = 8
            if length == 1, box.count == 16 {
                length = UInt64(bigEndian: box[8..<16])
                headerSize = 16
            }
            if box[4..<8].elementsEqual("jp2c".utf8) { return offset + headerSize }
            guard length >= headerSize else { return nil }  // 0: the last box, and it was not the codestream
            offset += length
        }
        return nil
    }

    /// SIZ (which follows SOC), then the markers after it until COD.
    private static func parse(_ handle: FileHandle, from start: UInt64) -> JPEG2000Header? {
        guard let siz = read(handle, at: start, count: 42), siz.count == 42,
              siz.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) else { return nil }
        func field(_ at: Int) -> Int { Int(UInt64(bigEndian: siz[(at)..<(at + 4)])) }
        let x1 = field(8), y1 = field(12), x0 = field(16), y0 = field(20)
        let tileWidth = field(24), tileHeight = field(28), tileX0 = field(32), tileY0 = field(36)
        guard x1 > x0, y1 > y0, tileWidth > 0, tileHeight > 0, tileX0 <= x0, tileY0 <= y0 else { return nil }
        var offset = start + 4 + UInt64(UInt64(bigEndian: siz[4..<6]))
        for _ in 0..<maximumSteps {
            guard let marker = read(handle, at: offset, count: 10), marker.count == 10, marker[0] == 0xFF else { return nil }
            if marker[1] == 0x52 {  // COD: Lcod, Scod, SGcod (4 bytes), then the decomposition levels
                return JPEG2000Header(
                    x0: x0, y0: y0, x1: x1, y1: y1, tileWidth: tileWidth, tileHeight: tileHeight,
                    tilesAcross: (x1 - tileX0 + tileWidth - 1) / tileWidth,
                    tilesDown: (y1 - tileY0 + tileHeight - 1) / tileHeight,
                    resolutions: Int(marker[9]) + 1)
            }
            if marker[1] == 0x90 { return nil }  // the first tile, and no COD in the main header
            offset += 2 + UInt64(UInt64(bigEndian: marker[2..<4]))
        }
        return nil
    }

    private static func read(_ handle: FileHandle, at offset: UInt64, count: Int) -> [UInt8]? {
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: count) else { return nil }
        return [UInt8](data)
    }
}

private extension UInt64 {
    /// A big-endian unsigned integer from its bytes.
    init(bigEndian bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
