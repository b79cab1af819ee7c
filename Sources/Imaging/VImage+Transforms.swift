import CVipsShims
import CVips
import ScrollGeometry

/// Geometric and tonal transforms for derivatives (IIIF rotation and quality).
extension VImage {
    /// Resamples with a chosen kernel (`resize` uses libvips's default, lanczos3).
    public func resize(horizontal: Double, vertical: Double, kernel: VipsKernel) throws -> VImage {
        try VImage.make { ts_resize_kernel(pointer, $0, horizontal, vertical, kernel) }
    }

    /// Scales to exactly `size` with `kernel`. libvips may round a side one pixel short or long:
    /// short is an error, long is cropped away.
    public func resized(to size: PixelSize, kernel: VipsKernel) throws -> VImage {
        if width == size.width && height == size.height { return self }
        let scaled = try resize(horizontal: Double(size.width) / Double(width),
                                vertical: Double(size.height) / Double(height), kernel: kernel)
        guard scaled.width >= size.width, scaled.height >= size.height else {
            throw VipsError(message: "resize gave \(scaled.width)x\(scaled.height), wanted \(size.width)x\(size.height)")
        }
        if scaled.width == size.width && scaled.height == size.height { return scaled }
        return try scaled.crop(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// Mirrors left to right.
    public func flippedHorizontally() throws -> VImage {
        try VImage.make { ts_flip_horizontal(pointer, $0) }
    }

    /// Rotates clockwise by `quarterTurns` x 90 degrees: exact, no resampling.
    public func rotated(quarterTurns: Int) throws -> VImage {
        try VImage.make { ts_rot90s(pointer, $0, Int32(quarterTurns)) }
    }

    /// Rotates clockwise by any angle. The result is the bounding box of the rotated
    /// image; corners outside it are `background` on every band (0 with an alpha band
    /// makes them transparent).
    public func rotated(degrees: Double, background: Double) throws -> VImage {
        try VImage.make { ts_rotate(pointer, $0, degrees, background) }
    }

    /// Adds an opaque alpha band.
    public func withAlpha() throws -> VImage {
        try VImage.make { ts_addalpha(pointer, $0) }
    }

    /// One grey band (plus alpha, if any).
    public func grayscale() throws -> VImage {
        try VImage.make { ts_colourspace_bw(pointer, $0) }
    }

    /// Every band becomes 0 or 255: 255 where the value is at least `threshold`.
    public func thresholded(at threshold: Double = 128) throws -> VImage {
        try VImage.make { ts_moreeq_const(pointer, $0, threshold) }
    }
}

extension VImage {
    /// `width` x `height` pixels of the image scaled by `horizontal`, `vertical` with bilinear interpolation:
    /// output pixel (x, y) is sampled at (x / horizontal - offsetX, y / vertical - offsetY), where input pixel
    /// (i, j) sits at (i, j); beyond the edges the edge pixels repeat. For resampling that must land exactly
    /// (`LevelArea`), which `resize` cannot be told.
    func scaledBilinear(horizontal: Double, vertical: Double, offsetX: Double, offsetY: Double,
                        width: Int, height: Int) throws -> VImage {
        try VImage.make {
            ts_scale_bilinear(pointer, $0, horizontal, vertical, offsetX, offsetY, Int32(width), Int32(height))
        }
    }
}
