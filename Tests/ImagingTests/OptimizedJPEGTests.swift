import Foundation
import Imaging
import Testing
import TestSupport

/// The lossless Huffman re-encoding of stored tiles: exactly the stored tile's pixels as libvips decodes
/// them, never more bytes, and a clean error (never a crash) for anything that is not a whole tile.
@Suite struct OptimizedJPEGTests {
    /// A tile with grain, like a photograph's: what libvips's standard Huffman tables code worst.
    static func grainy(width: Int, height: Int, seed: Int) -> [UInt8] {
        var pixels = TestImages.pixels(width: width, height: height, seed: seed)
        var random = UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15
        for i in pixels.indices {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[i] = UInt8(clamping: Int(pixels[i]) / 2 + 64 + Int(random >> 59) - 16)
        }
        return pixels
    }

    /// A JPEG as libvips's jpegsave writes tiles (baseline, standard tables): grey or colour, at `quality`
    /// (chroma 4:2:0 below 90, 4:4:4 from it).
    static func tile(width: Int, height: Int, grey: Bool = false, quality: Int = 85, seed: Int = 1) throws -> [UInt8] {
        var image = try VImage.fromPixels(grainy(width: width, height: height, seed: seed), width: width, height: height, bands: 3)
        if grey { image = try image.grayscale() }
        return try image.encoded(as: .jpeg, quality: quality)
    }

    /// The pixels libvips decodes `bytes` to (through a file, as tiles are read).
    static func decoded(_ bytes: [UInt8], _ folder: String, _ name: String) throws -> [UInt8] {
        let path = "\(folder)/\(name).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try VImage.open(path).pixels()
    }

    /// Tiles of every kind a pyramid holds: width, height, grey, quality.
    static let tileKinds: [(Int, Int, Bool, Int)] = [
        (256, 256, false, 85), // a whole tile, colour 4:2:0
        (256, 256, false, 95), // colour 4:4:4
        (256, 256, true, 85),  // grey
        (1, 1, false, 85),
        (1, 1, true, 85),
        (255, 130, false, 85), // an edge tile: sides that are no multiple of the 16-pixel MCU
        (17, 3, false, 92),
        (129, 256, true, 75),
    ]

    @Test(arguments: tileKinds)
    func theSamePixelsInNoMoreBytes(width: Int, height: Int, grey: Bool, quality: Int) throws {
        let folder = try TestImages.folder()
        let original = try Self.tile(width: width, height: height, grey: grey, quality: quality)
        let optimized = try OptimizedJPEG.bytes(original)
        #expect(optimized.count <= original.count)
        let expected = try Self.decoded(original, folder, "original")
        #expect(expected.count == width * height * (grey ? 1 : 3))
        #expect(try Self.decoded(optimized, folder, "optimized") == expected, "\(width)x\(height) grey \(grey) Q\(quality)")
        if width * height >= 128 * 128 {
            // Where there is something to code, the tables made for the tile's own symbols save bytes.
            #expect(optimized.count < original.count, "\(optimized.count) bytes against \(original.count)")
        }
    }

    @Test func progressiveScansKeepThePixelsToo() throws {
        let folder = try TestImages.folder()
        let original = try Self.tile(width: 200, height: 120)
        let progressive = try OptimizedJPEG.bytes(original, progressive: true)
        #expect(progressive.count < original.count)
        #expect(try Self.decoded(progressive, folder, "progressive") == (try Self.decoded(original, folder, "original")))
        // A progressive file is not a stored tile: refused, not re-encoded.
        #expect(throws: VipsError.self) { _ = try OptimizedJPEG.bytes(progressive) }
    }

    /// A tile already optimized gains nothing the second time: the input itself comes back.
    @Test func whatWouldNotShrinkIsKeptAsItIs() throws {
        let once = try OptimizedJPEG.bytes(try Self.tile(width: 64, height: 64))
        #expect(try OptimizedJPEG.bytes(once) == once)
    }

    @Test func whatIsNotAWholeSequentialJPEGIsAnError() throws {
        let good = try Self.tile(width: 96, height: 80)
        var bad: [(String, [UInt8])] = [
            ("empty", []), ("three bytes", [0xFF, 0xD8, 0xFF]), ("text", Array("not a jpeg at all".utf8)),
            ("over 16 MB", [0xFF, 0xD8] + [UInt8](repeating: 0, count: 16 << 20)),
            ("a header claiming 60000 x 60000", Self.withSize(good, width: 60000, height: 60000)),
        ]
        // Cut anywhere, end marker included: libjpeg would fill the rest in, and those are not the tile's pixels.
        for cut in Swift.stride(from: 1, to: good.count, by: 7) + [good.count - 1, good.count - 2] {
            bad.append(("cut at \(cut) of \(good.count)", Array(good.prefix(cut))))
        }
        for (label, bytes) in bad {
            #expect(throws: VipsError.self, "\(label)") { _ = try OptimizedJPEG.bytes(bytes) }
        }
        // Damaged bytes anywhere: an error or some bytes, never a crash.
        for damaged in Self.damaged(good, copies: 300) {
            _ = try? OptimizedJPEG.bytes(damaged)
        }
    }

    /// `copies` copies of `bytes`, each with 3 bytes changed at seeded random places.
    static func damaged(_ bytes: [UInt8], copies: Int) -> [[UInt8]] {
        var random: UInt64 = 7
        return (0..<copies).map { _ in
            var damaged = bytes
            for _ in 0..<3 {
                random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                damaged[Int(random >> 33) % damaged.count] = UInt8(truncatingIfNeeded: random >> 20)
            }
            return damaged
        }
    }

    /// `jpeg` with the width and height of its SOF0 frame header replaced.
    static func withSize(_ jpeg: [UInt8], width: Int, height: Int) -> [UInt8] {
        var bytes = jpeg
        guard let sof = (0..<(bytes.count - 8)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            return bytes
        }
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }
}
