import CTileDecoder
import CVips
import Foundation
import ScrollGeometry
import TestSupport
import Testing
@testable import Imaging

/// The resize and JPEG encoder that region requests use instead of a libvips pipeline: exact on
/// known inputs, near libvips's linear resize on a real picture, and the same JPEG libvips writes.
@Suite struct RegionPixelsTests {
    private func region(_ values: [UInt8], width: Int, height: Int, bands: Int) throws -> RegionPixels {
        let pixels = try RegionPixels(width: width, height: height, bands: bands)
        values.withUnsafeBufferPointer { pixels.buffer.bytes.update(from: $0.baseAddress!, count: values.count) }
        return pixels
    }

    private func values(_ pixels: RegionPixels) -> [UInt8] {
        Array(UnsafeBufferPointer(start: pixels.buffer.bytes, count: pixels.width * pixels.height * pixels.bands))
    }

    /// A step halved: each output pixel is the triangle-weighted mean of the four inputs around its
    /// centre (weights 1/8, 3/8, 3/8, 1/8), the edge pixel standing in for those past the edge.
    @Test func halvingAStepWeighsFourNeighbours() throws {
        let step: [UInt8] = [0, 0, 0, 0, 255, 255, 255, 255]
        let half = try region(step, width: 8, height: 1, bands: 1).resized(to: PixelSize(width: 4, height: 1))
        #expect(values(half) == [0, 32, 223, 255])
        // The same along the other axis, and per band.
        let column = try region(step.flatMap { [$0, 255 - $0, 7] }, width: 1, height: 8, bands: 3)
            .resized(to: PixelSize(width: 1, height: 4))
        #expect(values(column) == [0, 255, 7, 32, 223, 7, 223, 32, 7, 255, 0, 7])
    }

    @Test func flatColoursStayExactAtAnySize() throws {
        let sizes = [(1, 1), (1, 9), (3, 2), (17, 5), (254, 254), (300, 1)]
        for (inWidth, inHeight) in sizes {
            let flat = try region([UInt8](repeating: 0, count: inWidth * inHeight * 3).enumerated().map { [200, 17, 99][$0.offset % 3] },
                                  width: inWidth, height: inHeight, bands: 3)
            for (outWidth, outHeight) in sizes {
                let out = try flat.resized(to: PixelSize(width: outWidth, height: outHeight))
                #expect(out.width == outWidth && out.height == outHeight)
                #expect(values(out) == (0..<(outWidth * outHeight)).flatMap { _ in [UInt8]([200, 17, 99]) },
                        "\(inWidth)x\(inHeight) -> \(outWidth)x\(outHeight)")
            }
        }
    }

    /// On a picture with detail at every scale, within a few grey levels of libvips's linear resize
    /// (which differs in rounding and in where it takes its coefficients), and far closer than the
    /// same result one pixel out of register.
    @Test func shrinkingAndEnlargingAreNearLibvipsLinear() throws {
        let source = try VImage.fromPixels(TestImages.pixels(width: 600, height: 400), width: 600, height: 400, bands: 3)
        let pixels = try source.pixels()
        let bands = source.bands
        let input = try region(pixels, width: 600, height: 400, bands: bands)
        for size in [PixelSize(width: 300, height: 200), PixelSize(width: 451, height: 301), PixelSize(width: 333, height: 222),
                     PixelSize(width: 900, height: 500)] {
            let ours = values(try input.resized(to: size))
            let theirs = try source.resize(horizontal: Double(size.width) / 600, vertical: Double(size.height) / 400,
                                           kernel: VipsKernel(rawValue: 1))  // VIPS_KERNEL_LINEAR
                .crop(x: 0, y: 0, width: size.width, height: size.height).pixels()
            let psnr = TestImages.psnr(ours, theirs)
            let shifted = TestImages.psnr(Array(ours.dropFirst(bands)), Array(theirs.dropLast(bands)))
            #expect(psnr > 30 && psnr > shifted + 3, "\(size): PSNR \(psnr) dB, one pixel off \(shifted) dB")
        }
    }

    /// The encoder writes the JPEG libvips's jpegsave writes by default: decoded, the same pixels.
    @Test(arguments: [85, 95])
    func jpegIsLibvipsJPEG(quality: Int) throws {
        let folder = try TestImages.folder()
        for (width, height, bands) in [(254, 254, 3), (97, 13, 3), (50, 31, 1)] {
            let picture = try VImage.fromPixels(TestImages.pixels(width: width, height: height), width: width, height: height, bands: 3)
            let image = bands == 1 ? try picture.grayscale() : picture
            let input = try region(try image.pixels(), width: width, height: height, bands: bands)
            let ours = try input.jpegData(quality: quality)
            let theirs = try image.encoded(as: .jpeg, quality: quality)
            // Names of their own: libvips caches what it opened by file name.
            let name = "\(folder)/\(width)x\(height)x\(bands)q\(quality)"
            try Data(ours).write(to: URL(fileURLWithPath: name + "-ours.jpg"))
            try Data(theirs).write(to: URL(fileURLWithPath: name + "-theirs.jpg"))
            let decodedOurs = try VImage.open(name + "-ours.jpg")
            #expect(decodedOurs.width == width && decodedOurs.height == height && decodedOurs.bands == bands)
            #expect(try decodedOurs.pixels() == VImage.open(name + "-theirs.jpg").pixels(), "\(width)x\(height)x\(bands) Q\(quality)")
        }
    }

    /// The horizontal pass's vector loops (SSE2, with an AVX2 clone) give exactly the bytes of the
    /// plain C loops, on random pictures of random sizes resized by every factor the tap counts
    /// cover (enlarging, shrinking by up to 3, and beyond where the generic loop takes over),
    /// including pictures of only the extreme values 0 and 255.
    @Test func vectorLoopsGiveTheScalarLoopsBytes() throws {
        var random = SplitMix(seed: 13)
        for trial in 0..<300 {
            let bands = trial % 5 == 4 ? 1 : 3
            let inWidth = 1 + Int(random.next() % 400), inHeight = 1 + Int(random.next() % 12)
            // Factors from 4x up to a shrink of about 4x, with most trials in IIIF's (1, 2] range.
            let factor = trial % 3 == 0 ? 0.25 + Double(random.next() % 1000) / 250.0 : 1.0 + Double(random.next() % 1000) / 1000.0
            let outWidth = max(1, Int(Double(inWidth) / factor)), outHeight = max(1, Int(Double(inHeight) / factor))
            let extremes = trial % 7 == 0
            let input = (0..<(inWidth * inHeight * bands)).map { _ in
                extremes ? UInt8(random.next() % 2 * 255) : UInt8(truncatingIfNeeded: random.next())
            }
            let srcStride = inWidth * bands, dstStride = outWidth * bands
            var vector = [UInt8](repeating: 0, count: outWidth * outHeight * bands)
            var scalar = vector
            var error = [CChar](repeating: 0, count: 256)
            let vectorResult = ts_resize_linear(input, srcStride, Int32(inWidth), Int32(inHeight), Int32(bands),
                                                &vector, dstStride, Int32(outWidth), Int32(outHeight), &error, 256)
            let scalarResult = ts_resize_linear_scalar(input, srcStride, Int32(inWidth), Int32(inHeight), Int32(bands),
                                                       &scalar, dstStride, Int32(outWidth), Int32(outHeight), &error, 256)
            #expect(vectorResult == 0 && scalarResult == 0)
            #expect(vector == scalar, "\(inWidth)x\(inHeight)x\(bands) -> \(outWidth)x\(outHeight)")
        }
    }

    @Test func badSizesAreErrorsNotCrashes() throws {
        let input = try region([1, 2, 3], width: 1, height: 1, bands: 3)
        #expect(throws: VipsError.self) { try input.resized(to: PixelSize(width: 0, height: 5)) }
        #expect(throws: VipsError.self) { try input.jpegData(quality: 0) }
    }
}

/// A small seeded generator (SplitMix64): the same random pictures on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `ts_resize_linear_window`: a window of a whole resize, given the input pixels its filter reaches, is exactly
/// that part of the whole resize, so tiles made one by one (`BetweenLevelTile`) join without seams.
@Suite struct ResizeWindowTests {
    @Test(arguments: [(1000, 625), (1000, 800), (999, 624), (300, 301)])
    func windowsSideBySideAreTheWholeResize(inSide: Int, outSide: Int) throws {
        let bands = 3
        let source = TestImages.pixels(width: inSide, height: 37, seed: 4)
        let whole = try Self.resize(source, in: (inSide, 37), window: (0, 0, inSide, 37), out: (outSide, 23),
                                    outWindow: (0, 0, outSide, 23), bands: bands)
        // The whole window is the plain resize.
        var plain = [UInt8](repeating: 0, count: outSide * 23 * bands)
        var message = [CChar](repeating: 0, count: 256)
        #expect(ts_resize_linear(source, inSide * bands, Int32(inSide), 37, Int32(bands), &plain, outSide * bands,
                                 Int32(outSide), 23, &message, message.count) == 0)
        #expect(plain == whole)
        let scaleX = Double(inSide) / Double(outSide)
        var joined = [UInt8](repeating: 0, count: outSide * 23 * bands)
        var start = 0
        while start < outSide {
            let length = min(97, outSide - start)
            let reach = BetweenLevelTile.reach(start, length, scale: scaleX, extent: inSide)
            let part = try Self.resize(source, in: (inSide, 37), window: (reach.lowerBound, 0, reach.count, 37),
                                       out: (outSide, 23), outWindow: (start, 0, length, 23), bands: bands)
            for row in 0..<23 {
                for x in 0..<length * bands {
                    joined[(row * outSide + start) * bands + x] = part[row * length * bands + x]
                }
            }
            start += length
        }
        #expect(joined == whole)
    }

    /// Resizes the `window` (x, y, width, height) of `source` as the `outWindow` of a whole output `out`.
    static func resize(_ source: [UInt8], in size: (Int, Int), window: (Int, Int, Int, Int), out: (Int, Int),
                       outWindow: (Int, Int, Int, Int), bands: Int) throws -> [UInt8] {
        var input = [UInt8](repeating: 0, count: window.2 * window.3 * bands)
        for row in 0..<window.3 {
            for x in 0..<window.2 * bands {
                input[row * window.2 * bands + x] = source[((window.1 + row) * size.0 + window.0) * bands + x]
            }
        }
        var output = [UInt8](repeating: 0, count: outWindow.2 * outWindow.3 * bands)
        var message = [CChar](repeating: 0, count: 256)
        let status = ts_resize_linear_window(input, window.2 * bands, Int32(window.2), Int32(window.3), Int32(bands),
                                             &output, outWindow.2 * bands, Int32(outWindow.2), Int32(outWindow.3),
                                             Double(size.0) / Double(out.0), Double(size.1) / Double(out.1),
                                             Double(window.0), Double(window.1), Double(outWindow.0),
                                             Double(outWindow.1), &message, message.count)
        try #require(status == 0, "\(String(cString: message))")
        return output
    }
}
