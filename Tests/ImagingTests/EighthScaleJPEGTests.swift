import Foundation
import Testing
import TestSupport
@testable import Imaging

/// The 1/8-scale decode on two threads (`EighthScaleJPEG`) against libjpeg's own 1/8 decode through
/// libjpeg's own 1/8 decode (the partial last column and row kept): the same pixels, byte for byte, or no answer at all.
@Suite struct EighthScaleJPEGTests {
    /// libjpeg's own 1/8 decode, read row by row (its partial last column and row kept).
    static func libjpegEighth(_ path: String) throws -> VImage {
        try #require(try PyramidBuilder.decodeJPEG(path, scale: 8))
    }

    static func decode(_ path: String, threads: Int, parallelMinimumBytes: Int = 1 << 20) throws -> EighthScaleJPEG.Decoded? {
        let file = open(path, O_RDONLY)
        defer { close(file) }
        return try EighthScaleJPEG.decode(file: file, threads: threads, parallelMinimumBytes: parallelMinimumBytes)
    }

    /// One thread and two (the second thread's half used: `split`), against libjpeg's pixels.
    static func expectLibjpegsPixels(_ path: String, bands: Int, splitFrom minimum: Int = 1 << 20,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try libjpegEighth(path)
        let referencePixels = try reference.pixels()
        // The fuzz target's reference (libjpeg without libvips) agrees with libvips on a clean file.
        let direct = try #require(EighthScaleJPEG.libjpegReference([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))),
                                  sourceLocation: sourceLocation)
        #expect(direct.pixels == referencePixels && direct.width == reference.width && direct.bands == bands,
                sourceLocation: sourceLocation)
        for threads in [1, 2] {
            let decoded = try #require(try decode(path, threads: threads, parallelMinimumBytes: minimum),
                                       sourceLocation: sourceLocation)
            #expect(decoded.split == (threads == 2), "\(threads) thread(s)", sourceLocation: sourceLocation)
            #expect(decoded.image.width == reference.width && decoded.image.height == reference.height
                    && decoded.image.bands == bands, sourceLocation: sourceLocation)
            #expect(try decoded.image.pixels() == referencePixels, "\(threads) thread(s)", sourceLocation: sourceLocation)
        }
    }

    /// 4:4:4, large enough for the second thread by default, its size not a multiple of 8 (the 1/8 size
    /// rounded up: the partial last blocks are kept).
    @Test func aFullChromaSourceGivesLibjpegsPixels() throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: 1203, height: 1001, bands: 3, quality: 92, in: folder)
        let dataBytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(dataBytes > 1 << 20, "over the 1 MB the second thread needs")
        #expect(try Self.libjpegEighth(path).width == 151)
        try Self.expectLibjpegsPixels(path, bands: 3)
    }

    /// 4:2:0 (libvips below quality 90, and most cameras): each chroma block is 2x2 pixels through
    /// libjpeg's reduced inverse DCT, from its AC coefficients too. Sizes around the 16-pixel MCU.
    @Test(arguments: [(1203, 1001), (1600, 1200), (1215, 1009), (1208, 1000)])
    func aSubsampledSourceGivesLibjpegsPixels(width: Int, height: Int) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: width, height: height, bands: 3, quality: 85, in: folder)
        try Self.expectLibjpegsPixels(path, bands: 3, splitFrom: 1 << 16)
    }

    /// Smooth colour (what photographs mostly are) at low and high quality, 4:2:0.
    @Test(arguments: [40, 75, 89])
    func smoothColourGivesLibjpegsPixels(quality: Int) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: 1500, height: 1100, bands: 3, quality: quality, in: folder,
                                   pixels: TestImages.pixels(width: 1500, height: 1100, seed: quality))
        try Self.expectLibjpegsPixels(path, bands: 3, splitFrom: 1 << 12)
    }

    /// Huffman tables made for the image's own symbols (as cameras and optimizers write them), not the
    /// specification's: the same coefficients, so the same pixels.
    @Test func optimizedHuffmanTablesGiveLibjpegsPixels() throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: 1203, height: 1001, bands: 3, quality: 80, in: folder)
        let optimized = try OptimizedJPEG.recode([UInt8](Data(contentsOf: URL(fileURLWithPath: path))), progressive: false)
        let optimizedPath = folder + "/optimized.jpg"
        try Data(optimized).write(to: URL(fileURLWithPath: optimizedPath))
        try Self.expectLibjpegsPixels(optimizedPath, bands: 3, splitFrom: 1 << 16)
    }

    @Test func aGreySourceGivesLibjpegsPixels() throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: 2000, height: 1500, bands: 1, quality: 85, in: folder)
        try Self.expectLibjpegsPixels(path, bands: 1, splitFrom: 1 << 16)
    }

    /// Files it does not take are left to libjpeg: nil, never a wrong picture or a crash.
    @Test func filesItDoesNotTakeAreLeftToLibjpeg() throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: 400, height: 300, bands: 3, quality: 92, in: folder)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let frame = try #require(Self.markerOffset(0xC0, in: bytes))
        #expect(try Self.decode(path, threads: 2, parallelMinimumBytes: 1 << 10) != nil, "the unchanged file is taken")
        let small = try #require(try EighthScaleJPEG.decode(path), "under a megabyte: taken")
        #expect(!small.split, "under a megabyte: decoded on one thread, a second one would not pay for itself")
        var variants: [String: [UInt8]] = [:]
        var progressive = bytes
        progressive[frame + 1] = 0xC2
        variants["progressive"] = progressive
        var arithmetic = bytes
        arithmetic[frame + 1] = 0xC9
        variants["arithmetic"] = arithmetic
        // 4:2:2: libjpeg upsamples its chroma at 1/8 with a filter this decoder does not reproduce.
        var horizontal = bytes
        horizontal[frame + 11] = 0x21
        variants["4:2:2"] = horizontal
        // A restart interval of 16 MCUs, inserted before the frame (the data has no markers: libjpeg
        // would fail on it; what matters is that this decoder does not take it).
        variants["restart markers"] = Array(bytes[..<frame]) + [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x10] + Array(bytes[frame...])
        variants["truncated"] = Array(bytes[..<(bytes.count * 2 / 3)])
        variants["header only"] = Array(bytes[..<(frame + 20)])
        variants["not a JPEG"] = Array(try VImage.fromPixels(TestImages.pixels(width: 64, height: 64), width: 64, height: 64, bands: 3).pngData())
        variants["empty"] = []
        for (name, data) in variants {
            let file = folder + "/\(name).jpg"
            try Data(data).write(to: URL(fileURLWithPath: file))
            for threads in [1, 2] {
                #expect(try Self.decode(file, threads: threads, parallelMinimumBytes: 1 << 10) == nil, "\(name)")
            }
        }
        #expect(try EighthScaleJPEG.decode(folder + "/missing.jpg") == nil)
    }

    /// Damage anywhere in the entropy-coded data: no answer, or an image of the right size that is the
    /// same on one thread and on two, and never a crash or a read out of bounds. (Two threads never take
    /// what one refuses; a marker in the first half leaves nothing to split, and one thread decodes it.)
    @Test(arguments: [92, 85])
    func damagedDataNeverCrashes(quality: Int) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try NoiseJPEG.source(width: 1203, height: 1001, bands: 3, quality: quality, in: folder)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let scan = try #require(Self.markerOffset(0xDA, in: bytes))
        let data = (scan + 2 + (Int(bytes[scan + 2]) << 8 | Int(bytes[scan + 3])))..<(bytes.count - 2)
        var state: UInt64 = 7
        for round in 0..<24 {
            var damaged = bytes
            for _ in 0..<(1 + round % 4) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let at = data.lowerBound + Int(state >> 33) % data.count
                damaged[at] = round % 3 == 0 ? 0xFF : UInt8(truncatingIfNeeded: state >> 24)
            }
            let file = folder + "/damaged-\(round).jpg"
            try Data(damaged).write(to: URL(fileURLWithPath: file))
            let one = try Self.decode(file, threads: 1)
            let two = try Self.decode(file, threads: 2, parallelMinimumBytes: 1 << 12)
            #expect(two == nil || one != nil, "round \(round)")
            if let one, let two {
                #expect(one.image.width == 151 && one.image.height == 126, "round \(round)")
                #expect(try one.image.pixels() == two.image.pixels(), "round \(round)")
            }
        }
    }

    /// What the jpeg-eighth fuzz target found (its crash inputs, kept as seeds in Tests/fuzz/corpus/):
    /// a Huffman table with an all-ones code, which libjpeg refuses (`Bogus Huffman table definition`)
    /// and this decoder took; and a chroma block whose 2x2 samples lie past +-512, which libjpeg-turbo's
    /// SSE2 transform clamps where its C code (and this decoder) wrapped them. Both are refused now.
    @Test(arguments: ["crash-bogus-huffman-table", "crash-chroma-out-of-range"])
    func whatTheFuzzerFoundIsRefused(name: String) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../fuzz/corpus/jpeg-eighth/\(name)").standardized.path
        #expect(FileManager.default.fileExists(atPath: path))
        for threads in [1, 2] {
            #expect(try Self.decode(path, threads: threads, parallelMinimumBytes: 16) == nil, "\(threads) thread(s)")
        }
    }

    static func markerOffset(_ marker: UInt8, in bytes: [UInt8]) -> Int? {
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            if bytes[at + 1] == marker { return at }
            at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
        }
        return nil
    }
}
