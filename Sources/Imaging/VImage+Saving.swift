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
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let suffix = ".heif[compression=av1,Q=\(quality),bitdepth=8,effort=\(effort),strip]"
        try VipsErrorLedger.inMemory { token in
            guard ts_save_buffer(pointer, suffix, &buffer, &length) == 0 else {
                throw VipsError.take(or: "cannot encode avif", source: token)
            }
        }
        guard let bytes = buffer else { throw VipsError(message: "cannot encode avif") }
        defer { g_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// JPEG XL, lossy (libjxl's VarDCT; libvips maps `quality` to its distance) at encoder `effort` (1-9), in
    /// memory. Both numbers are the caller's constants, never a request's.
    public func jpegXLData(quality: Int, effort: Int) throws -> [UInt8] {
        precondition((1...100).contains(quality) && (1...9).contains(effort))
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        try VipsErrorLedger.inMemory { token in
            guard ts_save_buffer(pointer, ".jxl[Q=\(quality),effort=\(effort),strip]", &buffer, &length) == 0 else {
                throw VipsError.take(or: "cannot encode jpeg xl", source: token)
            }
        }
        guard let bytes = buffer else { throw VipsError(message: "cannot encode jpeg xl") }
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
