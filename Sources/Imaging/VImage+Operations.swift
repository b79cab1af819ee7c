import CVipsShims
import CVips

/// The libvips operations Tilescope uses, one thin call each.
extension VImage {
    public func crop(x: Int, y: Int, width: Int, height: Int) throws -> VImage {
        try VImage.make { ts_crop(pointer, $0, Int32(x), Int32(y), Int32(width), Int32(height)) }
    }

    public func resize(horizontal: Double, vertical: Double) throws -> VImage {
        try VImage.make { ts_resize(pointer, $0, horizontal, vertical) }
    }

    /// The box average of every `horizontal` x `vertical` pixels (integer factors): how dzsave makes
    /// its levels, and several times cheaper than `resize` for the same factor.
    public func shrink(horizontal: Int, vertical: Int) throws -> VImage {
        try VImage.make { ts_shrink(pointer, $0, Double(horizontal), Double(vertical)) }
    }

    /// The next coarser pyramid level: each side halved rounding up, a pixel the mean of a 2 x 2 block,
    /// an odd last column or row averaged with a copy of itself (as dzsave makes each level).
    public func halved() throws -> VImage {
        let evenWidth = width + width % 2, evenHeight = height + height % 2
        let even = evenWidth == width && evenHeight == height ? self
            : try VImage.make { ts_embed_copy(pointer, $0, Int32(evenWidth), Int32(evenHeight)) }
        return try even.shrink(horizontal: 2, vertical: 2)
    }

    /// Composites an alpha channel over a solid background (white by default).
    public func flatten(red: Double = 255, green: Double = 255, blue: Double = 255) throws -> VImage {
        try VImage.make { ts_flatten(pointer, $0, red, green, blue) }
    }

    public func toSRGB() throws -> VImage {
        try VImage.make { ts_colourspace_srgb(pointer, $0) }
    }

    /// Band `index` alone (the alpha of an RGBA image is band 3).
    public func extractBand(_ index: Int) throws -> VImage {
        try VImage.make { ts_extract_band(pointer, $0, Int32(index)) }
    }

    public func castToUChar() throws -> VImage {
        try VImage.make { ts_cast_uchar(pointer, $0) }
    }

    public func adding(_ other: VImage) throws -> VImage {
        try VImage.make { ts_add(pointer, other.pointer, $0) }
    }

    public func replicate(across: Int, down: Int) throws -> VImage {
        try VImage.make { ts_replicate(pointer, $0, Int32(across), Int32(down)) }
    }

    /// Enlarges by whole factors, each pixel becoming an `across` x `down` block.
    public func zoom(across: Int, down: Int) throws -> VImage {
        try VImage.make { ts_zoom(pointer, $0, Int32(across), Int32(down)) }
    }

    /// Replaces each pixel value v with entry v of `table`, a one-row image with an entry
    /// for every value that occurs; a 3-band table turns one band into colour.
    public func mapped(through table: VImage) throws -> VImage {
        try VImage.make { ts_maplut(pointer, $0, table.pointer) }
    }

    /// Saves as JPEG like `saveJPEG(to:quality:)`, reporting libvips's progress as the
    /// pipeline streams (from the computing thread, once per percent change).
    public func saveJPEG(to path: String, quality: Int = 85,
                         progress: @escaping @Sendable (BuildProgress) -> Void) throws {
        try ProgressRelay(progress).observing(self) { try saveJPEG(to: path, quality: quality) }
    }

    /// Joins images into a grid, `across` per row, in row-major order.
    public static func join(_ images: [VImage], across: Int) throws -> VImage {
        var pointers: [UnsafeMutablePointer<VipsImage>?] = images.map { $0.pointer }
        return try withExtendedLifetime(images) {
            try VImage.make { ts_arrayjoin(&pointers, Int32(pointers.count), $0, Int32(across)) }
        }
    }

    /// `a * pixel + b` on every band.
    public func linear(_ a: Double, _ b: Double) throws -> VImage {
        try VImage.make { ts_linear1(pointer, $0, a, b) }
    }

    /// A zone plate: concentric rings whose frequency rises with the radius. Tests use it for large
    /// images that libvips computes as a stream, without holding their pixels.
    public static func zonePlate(width: Int, height: Int) throws -> VImage {
        try VImage.make { ts_zone($0, Int32(width), Int32(height)) }
    }

    /// Wraps 8-bit interleaved pixels (copied, so `pixels` may go away).
    public static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws -> VImage {
        precondition(pixels.count == width * height * bands)
        return try pixels.withUnsafeBytes { raw in
            guard let image = vips_image_new_from_memory_copy(
                raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
            else { throw VipsError.take(or: "cannot wrap pixels") }
            return VImage(taking: image)
        }
    }

    /// Decodes an encoded image held in memory (JPEG, AVIF, WebP, PNG) whole, so that `bytes` may go away.
    public static func decoding(_ bytes: [UInt8]) throws -> VImage {
        try VipsErrorLedger.inMemory { token in
            try bytes.withUnsafeBytes { raw in
                guard let image = ts_image_decode_buffer(raw.baseAddress, raw.count) else {
                    throw VipsError.take(or: "cannot decode \(raw.count) bytes", source: token)
                }
                return VImage(taking: image)
            }
        }
    }

    /// Computes the whole image into 8-bit interleaved pixels (small images only).
    public func pixels() throws -> [UInt8] {
        let image = format == VIPS_FORMAT_UCHAR ? self : try castToUChar()
        var size = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &size) else {
            throw VipsError.take(or: "cannot compute pixels")
        }
        defer { g_free(memory) }
        return Array(UnsafeRawBufferPointer(start: memory, count: size))
    }
}

extension VImage {
    /// Opens a JPEG decoded at 1/`shrink` scale (1, 2, 4 or 8) by libjpeg itself, sequentially:
    /// the cheap way to a preview of a huge JPEG, which is never decoded whole.
    public static func openJPEG(_ path: String, shrink: Int, strict: Bool = false) throws -> VImage {
        guard let image = ts_jpeg_open_shrunk(path, Int32(shrink), strict ? 1 : 0) else {
            throw VipsError.take(or: "libvips cannot open the file", source: path)
        }
        return VImage(taking: image)
    }

    /// The pixels computed once into memory: a sequential source can then feed several outputs.
    public func inMemory() throws -> VImage {
        try VImage.make { ts_copy_memory(pointer, $0) }
    }
}
