import CVips

/// What a source image's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bands: Int

    public init(width: Int, height: Int, bands: Int) {
        self.width = width
        self.height = height
        self.bands = bands
    }

    public var pixels: Int { width * height }

    /// Reads the header only: a few milliseconds even for a gigapixel file. The size is the upright
    /// picture's (`SourceImage`).
    /// `strict` (for untrusted files) makes libvips fail on the first error instead of warning.
    /// Opened for sequential access, which libvips never caches: its operation cache answers a
    /// random-access load of a name it has loaded before with the old file's image, so a source
    /// rewritten in place kept its old size (libvips 8.14; `ImageHeaderTests`).
    public static func read(_ path: String, strict: Bool = false) throws -> ImageHeader {
        try Vips.start()
        let image = try VipsErrorLedger.attributed(to: path) { try VImage.open(path, sequential: true, strict: strict) }
        // The size as shown: a phone's portrait photo is stored landscape with an orientation tag.
        let turned = SourceImage.swapsSides(SourceImage.orientation(of: image))
        return ImageHeader(width: turned ? image.height : image.width, height: turned ? image.width : image.height,
                           bands: image.bands)
    }

    /// The libvips loader that would open the file ("jpegload", "pngload", ...), found by sniffing
    /// its first bytes without opening it; nil when no loader recognises it.
    public static func loader(of path: String) -> String? {
        guard (try? Vips.start()) != nil else { return nil }
        let name = VipsErrorLedger.attributed(to: path) { () -> UnsafePointer<CChar>? in
            guard let name = vips_foreign_find_load(path) else {
                _ = VipsError.take(or: "", source: path)  // "not a known file format" is expected here: drain it
                return nil
            }
            return name
        }
        guard let name else { return nil }
        return String(cString: name)
    }
}
