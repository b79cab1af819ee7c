import CShims
import CVips

/// An output format libvips can encode to memory, with its media type.
public enum EncodedFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, tiff, jp2

    public var mediaType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .tiff: return "image/tiff"
        case .jp2: return "image/jp2"
        }
    }

    /// Whether transparent pixels survive the encoding (JPEG and JPEG 2000 here do not).
    public var keepsAlpha: Bool {
        switch self {
        case .jpeg, .jp2: return false
        case .png, .webp, .gif, .tiff: return true
        }
    }

    /// The libvips saver, chosen by suffix. Constants only: request text never gets here.
    fileprivate func suffix(quality: Int) -> String {
        switch self {
        case .jpeg: return ".jpg[Q=\(quality),strip]"
        case .png: return ".png[strip]"
        case .webp: return ".webp[Q=\(quality),strip]"
        case .gif: return ".gif"
        case .tiff: return ".tif[compression=deflate,strip]"
        case .jp2: return ".jp2[Q=\(quality)]"
        }
    }
}

extension VImage {
    /// Computes the image and encodes it in memory.
    public func encoded(as format: EncodedFormat, quality: Int = 85) throws -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard ts_save_buffer(pointer, format.suffix(quality: quality), &buffer, &length) == 0, let bytes = buffer else {
            throw VipsError.take(or: "cannot encode \(format.rawValue)")
        }
        defer { g_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
