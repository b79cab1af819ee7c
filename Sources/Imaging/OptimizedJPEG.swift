import CTileDecoder
import Foundation

/// A stored JPEG tile re-encoded losslessly in fewer bytes: the same DCT coefficients and quantization
/// tables, so exactly the same pixels when decoded, with Huffman tables made for the tile's own symbols
/// instead of the JPEG specification's standard ones (which libvips writes): libjpeg's own transcoding, what
/// `jpegtran -optimize -copy none` does (`ts_jpeg_optimize_huffman`; C only for libjpeg's longjmp).
///
/// Why: a derived-format request that is answered with JPEG bytes (the deepest level's AVIF, a WebP or
/// AVIF that came out no smaller) sends these instead of the tile as built, 6 to 7 % fewer bytes at no
/// cost in picture (docs/benchmarks.md#client-vs-openseadragon). Baseline, not progressive: progressive
/// scans save about 1.3 % more on the bench image's tiles but decode slower in browsers.
public enum OptimizedJPEG {
    /// The smaller of `jpeg` re-encoded with optimized Huffman tables and `jpeg` itself (never more bytes
    /// than given). Throws for anything that is not a whole sequential JPEG (empty, truncated, corrupt,
    /// progressive, over 16 MB or 4096 pixels a side).
    public static func bytes(_ jpeg: [UInt8], progressive: Bool = false) throws -> [UInt8] {
        let recoded = try recode(jpeg, progressive: progressive)
        return recoded.count < jpeg.count ? recoded : jpeg
    }

    /// The re-encoding itself, whatever its size.
    static func recode(_ jpeg: [UInt8], progressive: Bool) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        try JPEGTile.check { message, capacity in
            jpeg.withUnsafeBufferPointer { input in
                ts_jpeg_optimize_huffman(input.baseAddress, input.count, progressive ? 1 : 0, &output, &size,
                                         message, capacity)
            }
        }
        guard let output else { throw VipsError(message: "libjpeg wrote no bytes") }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
