import ScrollGeometry

/// Something that gives the pixels of any region of an image at any output size: the Deep Zoom
/// pyramid's JPEG tiles (`PyramidRegionReader`) or a lossless copy of the source (`LosslessPyramid`).
public protocol RegionReading: Sendable {
    /// `region` (full-resolution pixels, inside the image) scaled to exactly `size`.
    func read(_ region: PixelRect, size: PixelSize) throws -> VImage
}
