import CVipsShims
import CTileDecoder
import Foundation

/// A baseline JPEG at 1/8 scale with its entropy decoding split over two threads
/// (`ts_jpeg_eighth_scale`, Sources/CTileDecoder/jpeg_eighth.c): the very pixels of libvips's jpegload
/// at shrink 8, sooner.
///
/// Why: the preview of a progressive build is a 1/8-scale decode of the whole source, and for a
/// gigapixel JPEG that decode is nearly all of the wait before the image can be looked at. libjpeg
/// decodes it on one thread; the second core is idle until the full pass starts.
public enum EighthScaleJPEG {
    /// What a decode gave: the image, and whether the second thread's half was used.
    public struct Decoded {
        public let image: VImage
        public let split: Bool
    }

    /// The file at `path` at 1/8 scale, or nil for a file this decoder does not take (progressive,
    /// 4:2:2, restart markers, CMYK, corrupt..., or over its memory budget at 1/8: above about 4.3 gigapixels
    /// in colour): decode that one with libjpeg, which also says what is wrong with it. A file it cannot
    /// split over two threads (under a megabyte of data, or its records over the budget: above about 1.7
    /// gigapixels in 4:2:0 colour, 2.6 in 4:4:4) it decodes on one, still faster than libjpeg.
    public static func decode(_ path: String, threads: Int = 2) throws -> Decoded? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        return try decode(file: file, threads: threads)
    }

    /// The same from an open file. `parallelMinimumBytes`: the entropy-coded data below which one thread
    /// decodes it all (a second thread does not pay for itself on small files; tests and the fuzzer set
    /// it lower to reach the split on small inputs).
    public static func decode(file: Int32, threads: Int, parallelMinimumBytes: Int = 1 << 20) throws -> Decoded? {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, bands: Int32 = 0, split: Int32 = 0
        guard ts_jpeg_eighth_scale(file, Int32(min(max(threads, 1), 2)), max(parallelMinimumBytes, 0),
                                   &pixels, &width, &height, &bands, &split) == 0,
              let pixels else { return nil }
        let size = Int(width) * Int(height) * Int(bands)
        guard let image = ts_image_from_malloc(pixels, size, width, height, bands) else {
            free(pixels)
            throw VipsError.take(or: "cannot wrap \(width)x\(height) pixels")
        }
        return Decoded(image: VImage(taking: image), split: split != 0)
    }

    /// libjpeg's own 1/8-scale decode of `jpeg` (`ts_jpeg_eighth_scale_libjpeg`), strict: nil if libjpeg
    /// fails or warns (corrupt data, a premature end, extraneous bytes). What the fuzzer compares this
    /// decoder with; libvips's pixels are no reference for a file libjpeg warns about.
    public static func libjpegReference(_ jpeg: [UInt8]) -> (pixels: [UInt8], width: Int, height: Int, bands: Int)? {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, bands: Int32 = 0
        let status = jpeg.withUnsafeBufferPointer { input in
            ts_jpeg_eighth_scale_libjpeg(input.baseAddress, input.count, &pixels, &width, &height, &bands)
        }
        guard status == 0, let pixels else { return nil }
        defer { free(pixels) }
        let size = Int(width) * Int(height) * Int(bands)
        return (Array(UnsafeBufferPointer(start: pixels, count: size)), Int(width), Int(height), Int(bands))
    }
}
