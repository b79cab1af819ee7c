import Foundation
import Imaging
import Testing
import TestSupport

/// JPEG XL recompression of stored tiles: lossless (the JPEG comes back byte for byte, so the picture is the
/// stored tile's), smaller than the tile with optimized Huffman tables, and a clean error, never a crash or
/// other bytes, for anything else.
@Suite struct JPEGXLRecompressionTests {
    /// libjxl's default, the server's (Tilescope's `TileQualities.jpegXLEffort`).
    static let effort = 7

    @Test(arguments: OptimizedJPEGTests.tileKinds)
    func givesBackTheVeryJPEG(width: Int, height: Int, grey: Bool, quality: Int) throws {
        let jpeg = try OptimizedJPEGTests.tile(width: width, height: height, grey: grey, quality: quality)
        let jxl = try JPEGXLRecompression.bytes(jpeg, effort: Self.effort)
        #expect(Array(jxl.prefix(2)) == [0xFF, 0x0A] || Array(jxl.prefix(12)) == Self.containerSignature)
        #expect(try JPEGXLRecompression.reconstructedJPEG(jxl) == jpeg, "\(width)x\(height) grey \(grey) Q\(quality)")
        if width * height >= 128 * 128 && !grey {
            // Where there is colour to code: fewer bytes than even the optimized Huffman tables give. (Not
            // always for grey: 4,239 against 4,179 bytes for the grey 129 x 256 one; the server sends the smaller.)
            let optimized = try OptimizedJPEG.bytes(jpeg)
            #expect(jxl.count < optimized.count, "\(jxl.count) bytes against \(optimized.count)")
        }
    }

    /// What a browser draws: libjxl decodes the coefficients to pixels itself (not through libjpeg), within
    /// rounding of libjpeg's decode of the stored tile and no further from the pixels the tile was made from.
    @Test func decodesToTheStoredTilesPicture() throws {
        let folder = try TestImages.folder()
        let source = OptimizedJPEGTests.grainy(width: 256, height: 256, seed: 1)
        let jpeg = try OptimizedJPEGTests.tile(width: 256, height: 256)
        let libjpeg = try OptimizedJPEGTests.decoded(jpeg, folder, "stored")
        let decoded = try VImage.decoding(try JPEGXLRecompression.bytes(jpeg, effort: Self.effort))
        #expect(decoded.width == 256 && decoded.height == 256 && decoded.bands == 3)
        let libjxl = try decoded.pixels()
        #expect(zip(libjxl, libjpeg).map { abs(Int($0) - Int($1)) }.max()! <= 6)
        func squaredError(_ pixels: [UInt8]) -> Double {
            var sum = 0
            for (decoded, original) in zip(pixels, source) {
                let difference = Int(decoded) - Int(original)
                sum += difference * difference
            }
            return Double(sum) / Double(source.count)
        }
        #expect(squaredError(libjxl) <= squaredError(libjpeg) * 1.01, "\(squaredError(libjxl)) against \(squaredError(libjpeg))")
    }

    @Test func whatIsNotAJPEGIsAnError() throws {
        let good = try OptimizedJPEGTests.tile(width: 96, height: 80)
        let bad: [(String, [UInt8])] = [
            ("empty", []), ("three bytes", [0xFF, 0xD8, 0xFF]), ("text", Array("not a jpeg at all".utf8)),
            ("over 16 MB", [0xFF, 0xD8] + [UInt8](repeating: 0, count: 16 << 20)),
            ("the first half", Array(good.prefix(good.count / 2))),
        ]
        for (label, bytes) in bad {
            #expect(throws: VipsError.self, "\(label)") { _ = try JPEGXLRecompression.bytes(bytes, effort: Self.effort) }
        }
        // Cut or damaged anywhere: an error, or bytes that give back exactly what was given. Never other bytes.
        let inputs = Swift.stride(from: 1, to: good.count, by: 11).map { Array(good.prefix($0)) }
            + OptimizedJPEGTests.damaged(good, copies: 200)
        for input in inputs {
            guard let jxl = try? JPEGXLRecompression.bytes(input, effort: Self.effort) else { continue }
            #expect(try JPEGXLRecompression.reconstructedJPEG(jxl) == input)
        }
    }

    /// Without its JPEG reconstruction box a recompression is a JPEG XL like any other: it still decodes to
    /// pixels, but gives back no JPEG.
    @Test func reconstructionNeedsTheReconstructionBox() throws {
        let jxl = try JPEGXLRecompression.bytes(try OptimizedJPEGTests.tile(width: 64, height: 64), effort: Self.effort)
        #expect(Array(jxl.prefix(12)) == Self.containerSignature)
        var boxes: [(type: String, bytes: ArraySlice<UInt8>)] = []
        var offset = 0
        while offset + 8 <= jxl.count {
            let size = jxl[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: jxl[offset + 4..<offset + 8], as: UTF8.self)
            let end = size == 0 ? jxl.count : offset + size  // 0: the last box, to the end of the file
            try #require(size == 0 || size >= 8 && end <= jxl.count)
            boxes.append((type, jxl[offset..<end]))
            offset = end
        }
        #expect(boxes.map(\.type).contains("jbrd"))
        let stripped = Array(boxes.filter { $0.type != "jbrd" }.map(\.bytes).joined())
        #expect(try VImage.decoding(stripped).width == 64)
        #expect(throws: VipsError.self) { _ = try JPEGXLRecompression.reconstructedJPEG(stripped) }
        #expect(throws: VipsError.self) { _ = try JPEGXLRecompression.reconstructedJPEG(Array("not jxl".utf8)) }
        #expect(throws: VipsError.self) { _ = try JPEGXLRecompression.reconstructedJPEG(Array(jxl.prefix(jxl.count / 2))) }
    }

    /// The ISO BMFF signature box a JPEG XL container starts with (a bare codestream starts FF 0A).
    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
}
