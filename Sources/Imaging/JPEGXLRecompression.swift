import CLibJXL
import Glibc

/// A stored JPEG tile as JPEG XL without loss: libjxl's JPEG recompression keeps the tile's DCT coefficients
/// and quantization tables and codes them better, together with what it needs to give back the very JPEG
/// bytes it was made from (`reconstructedJPEG`). A browser that decodes JPEG XL draws the stored tile's
/// picture, from about 82 % of its bytes (87 % of the tile with optimized Huffman tables, `OptimizedJPEG`)
/// on bench/client's grainy image, at 3 ms of CPU a tile.
///
/// Why: a derived-format request answered with JPEG bytes (an AVIF not made yet, or one that came out no
/// smaller than the JPEG) sends this instead to a client that accepts `image/jxl`: fewer bytes for the same
/// pixels, cheap enough to make while the client waits (docs/api.md#tile-formats).
public enum JPEGXLRecompression {
    /// Stored tiles are tens of kilobytes; anything far larger is not one of ours.
    static let maxInputBytes = 16 << 20

    /// The JPEG XL recompression of the JPEG `jpeg` at libjxl's encoder `effort` (1-9; the caller's constant),
    /// whatever its size. Throws for anything libjxl cannot
    /// recompress (not a JPEG, truncated, corrupt; progressive and arithmetic-coded JPEGs it takes).
    public static func bytes(_ jpeg: [UInt8], effort: Int) throws -> [UInt8] {
        guard jpeg.count >= 4, jpeg.count <= maxInputBytes else {
            throw VipsError(message: "libjxl: \(jpeg.count) bytes is not a JPEG tile")
        }
        guard let encoder = JxlEncoderCreate(nil) else { throw VipsError(message: "libjxl: no encoder") }
        defer { JxlEncoderDestroy(encoder) }
        // Keeps what reconstruction needs (the JPEG's markers, Huffman tables, order): a few hundred bytes.
        guard JxlEncoderStoreJPEGMetadata(encoder, JXL_TRUE) == JXL_ENC_SUCCESS,
              let settings = JxlEncoderFrameSettingsCreate(encoder, nil),
              JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)) == JXL_ENC_SUCCESS
        else { throw VipsError(message: "libjxl: cannot set up the encoder") }
        let added = jpeg.withUnsafeBufferPointer { JxlEncoderAddJPEGFrame(settings, $0.baseAddress, $0.count) }
        guard added == JXL_ENC_SUCCESS else {
            throw VipsError(message: "libjxl: cannot recompress this JPEG (error \(JxlEncoderGetError(encoder).rawValue))")
        }
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: max(4096, jpeg.count))
        var used = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + used
                var available = buffer.count - used
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                used = buffer.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT, output.count < 4 * maxInputBytes else {
                throw VipsError(message: "libjxl: the encoder failed (error \(JxlEncoderGetError(encoder).rawValue))")
            }
            output.append(contentsOf: repeatElement(0, count: output.count))
        }
        output.removeSubrange(used...)
        return output
    }

    /// The JPEG that the recompressed `jxl` was made from, byte for byte: how tests prove that a JPEG XL
    /// answer is the stored tile's picture. Throws for a JPEG XL without reconstruction data, or not JPEG XL.
    public static func reconstructedJPEG(_ jxl: [UInt8]) throws -> [UInt8] {
        guard let decoder = JxlDecoderCreate(nil) else { throw VipsError(message: "libjxl: no decoder") }
        defer { JxlDecoderDestroy(decoder) }
        let events = Int32(JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS else {
            throw VipsError(message: "libjxl: cannot set up the decoder")
        }
        // The decoder writes into this buffer across calls, so it is malloc'ed: a Swift array's storage is
        // only pinned inside a closure.
        var capacity = max(4096, jxl.count * 2)
        guard var jpeg = malloc(capacity)?.assumingMemoryBound(to: UInt8.self) else {
            throw VipsError(message: "libjxl: out of memory")
        }
        defer { free(jpeg) }
        return try jxl.withUnsafeBufferPointer { input -> [UInt8] in
            guard JxlDecoderSetInput(decoder, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                throw VipsError(message: "libjxl: cannot read the input")
            }
            JxlDecoderCloseInput(decoder)
            var written = 0, reconstructing = false
            func setBuffer() throws {
                guard JxlDecoderSetJPEGBuffer(decoder, jpeg + written, capacity - written) == JXL_DEC_SUCCESS else {
                    throw VipsError(message: "libjxl: cannot set the JPEG buffer")
                }
            }
            while true {
                let status = JxlDecoderProcessInput(decoder)
                switch status {
                case JXL_DEC_JPEG_RECONSTRUCTION:
                    reconstructing = true
                    try setBuffer()
                case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                    written = capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                    guard capacity < 4 * maxInputBytes, let grown = realloc(jpeg, capacity * 2) else {
                        throw VipsError(message: "libjxl: the JPEG is too large")
                    }
                    jpeg = grown.assumingMemoryBound(to: UInt8.self)
                    capacity *= 2
                    try setBuffer()
                case JXL_DEC_FULL_IMAGE:
                    guard reconstructing else { throw VipsError(message: "libjxl: no JPEG reconstruction data") }
                    written = capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                case JXL_DEC_SUCCESS:
                    guard reconstructing else { throw VipsError(message: "libjxl: no JPEG reconstruction data") }
                    return Array(UnsafeBufferPointer(start: jpeg, count: written))
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    throw VipsError(message: "libjxl: no JPEG reconstruction data")
                default:
                    throw VipsError(message: "libjxl: cannot decode this JPEG XL (status \(status.rawValue))")
                }
            }
        }
    }
}
