import CVipsShims
import CVips

/// Encoders: to files and to memory.
extension VImage {
    public func saveJPEG(to path: String, quality: Int = 85) throws {
        guard ts_jpegsave(pointer, path, Int32(quality)) == 0 else {
            throw VipsError.take(or: "cannot save \(path)")
        }
    }

    public func jpegData(quality: Int = 85) throws -> [UInt8] {
        try encode { ts_jpegsave_buffer(pointer, $0, $1, Int32(quality)) }
    }

    public func pngData() throws -> [UInt8] {
        try encode { ts_pngsave_buffer(pointer, $0, $1) }
    }

    /// AVIF (AV1 in HEIF) at `quality` and encoder `effort` (0-9), 8 bits, 4:2:0, in memory. Both
    /// numbers are the caller's constants, never a request's.
    public func avifData(quality: Int, effort: Int) throws -> [UInt8] {
        precondition((1...100).contains(quality) && (0...9).contains(effort))
        return try saved(as: ".heif[compression=av1,Q=\(quality),bitdepth=8,effort=\(effort),strip]", named: "avif")
    }

    /// JPEG XL, lossy (libjxl's VarDCT; libvips maps `quality` to its distance) at encoder `effort` (1-9), in
    /// memory. Both numbers are the caller's constants, never a request's.
    public func jpegXLData(quality: Int, effort: Int) throws -> [UInt8] {
        precondition((1...100).contains(quality) && (1...9).contains(effort))
        return try saved(as: ".jxl[Q=\(quality),effort=\(effort),strip]", named: "jpeg xl")
    }

    /// The image saved in memory by the saver that libvips picks for `suffix` (its options in brackets).
    private func saved(as suffix: String, named format: String) throws -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        try VipsErrorLedger.inMemory { token in
            guard ts_save_buffer(pointer, suffix, &buffer, &length) == 0 else {
                throw VipsError.take(or: "cannot encode \(format)", source: token)
            }
        }
        guard let bytes = buffer else { throw VipsError(message: "cannot encode \(format)") }
        defer { g_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    private func encode(
        _ save: (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    ) throws -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        try VipsErrorLedger.inMemory { token in
            guard save(&buffer, &length) == 0 else { throw VipsError.take(or: "cannot encode image", source: token) }
        }
        guard let bytes = buffer else { throw VipsError(message: "cannot encode image") }
        defer { g_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
