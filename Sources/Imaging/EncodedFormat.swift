import CVipsShims
import CVips

/// An output format libvips can encode to memory, with its media type.
public enum EncodedFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, tiff, jp2, avif

    public var mediaType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .tiff: return "image/tiff"
        case .jp2: return "image/jp2"
        case .avif: return "image/avif"
        }
    }

    /// Whether transparent pixels survive the encoding (JPEG and JPEG 2000 here do not).
    public var keepsAlpha: Bool {
        switch self {
        case .jpeg, .jp2: return false
        case .png, .webp, .gif, .tiff, .avif: return true
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
        // AV1 in a HEIF container is AVIF, as `avifData` writes it. 8 bits (libvips's default of 12 is larger
        // and no display shows it). Effort 2 where the caller names none (the server's own encodings name
        // theirs, each with its measured reason).
        case .avif: return ".heif[compression=av1,Q=\(quality),bitdepth=8,effort=2,strip]"
        }
    }
}

extension EncodedFormat {
    /// Whether the installed libvips can write this format: AVIF needs libheif with an AV1
    /// encoder (aom, rav1e or svt), which not every build has. Found once, by encoding one pixel.
    public var isAvailable: Bool {
        self == .avif ? Self.avifAvailable : true
    }

    private static let avifAvailable: Bool = {
        guard (try? Vips.start()) != nil, let pixel = try? VImage.fromPixels([0, 0, 0], width: 1, height: 1, bands: 3)
        else { return false }
        return (try? pixel.encoded(as: .avif, quality: 50)) != nil
    }()
}

extension VImage {
    /// Computes the image and encodes it in memory.
    public func encoded(as format: EncodedFormat, quality: Int = 85) throws -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        try VipsErrorLedger.inMemory { token in
            guard ts_save_buffer(pointer, format.suffix(quality: quality), &buffer, &length) == 0 else {
                throw VipsError.take(or: "cannot encode \(format.rawValue)", source: token)
            }
        }
        guard let bytes = buffer else { throw VipsError(message: "cannot encode \(format.rawValue)") }
        defer { g_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
