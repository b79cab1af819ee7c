import Foundation
import Testing
import TestSupport
@testable import Imaging

/// Hostile TIFF headers (every new source is probed, an upload named `.tif` too): numbers from the file that do
/// not fit an `Int`, or would overflow the arithmetic after, are refused or ignored, never a trap. The first of
/// these was found by the `tiff-layout` fuzz target: a BigTIFF directory count above `Int.max`.
@Suite struct TIFFLayoutTests {
    /// A little-endian BigTIFF whose first directory (at 16) has `entries` (tag, type, count, value).
    static func bigTIFF(count: UInt64? = nil, _ entries: [(tag: UInt16, type: UInt16, count: UInt64, value: UInt64)]) -> [UInt8] {
        func le(_ value: UInt64, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes: [UInt8] = [0x49, 0x49, 43, 0, 8, 0, 0, 0] + le(16, 8)
        bytes += le(count ?? UInt64(entries.count), 8)
        for entry in entries {
            bytes += le(UInt64(entry.tag), 2) + le(UInt64(entry.type), 2) + le(entry.count, 8) + le(entry.value, 8)
        }
        return bytes + le(0, 8)
    }

    static func layout(_ bytes: [UInt8]) throws -> TIFFLayout? {
        let path = try TestScratch.folder("tiff-layout") + "/file.tif"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try TIFFLayout.read(SourceFile(path: path))
    }

    @Test func aDirectoryCountBeyondIntIsRefused() {
        #expect(throws: TIFFLayoutError.self) { try Self.layout(Self.bigTIFF(count: UInt64.max, [])) }
    }

    @Test func sidesBeyondTheBoundAreRefused() {
        let long8: UInt16 = 16
        #expect(throws: TIFFLayoutError.self) {
            try Self.layout(Self.bigTIFF([(256, long8, 1, UInt64.max), (257, long8, 1, 100)]))
        }
        #expect(throws: TIFFLayoutError.self) {
            try Self.layout(Self.bigTIFF([(256, long8, 1, 100), (257, long8, 1, UInt64(1) << 40)]))
        }
    }

    @Test func tileSidesThatAreNoTIFFTilesAreNotAGrid() throws {
        let long8: UInt16 = 16, short: UInt16 = 3
        for (tileWidth, tileHeight) in [(UInt64(1), UInt64(16)), (16, UInt64.max), (0, 16), (256, 256)] {
            let layout = try #require(try Self.layout(Self.bigTIFF([
                (256, long8, 1, 1000), (257, long8, 1, 1000), (259, short, 1, 7),
                (322, long8, 1, tileWidth), (323, long8, 1, tileHeight)])))
            #expect(layout.pages[0].isTiled == (tileWidth == 256), "\(tileWidth)x\(tileHeight)")
        }
    }
}
