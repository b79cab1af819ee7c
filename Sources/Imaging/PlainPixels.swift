/// 8-bit interleaved pixels with their size, as plain values (`bands` per pixel: 1 grey, 3 RGB): what an
/// encoding is made from and measured against (`SSIMQualityLadder`), and what outlives a `RegionPixels` handed
/// to libvips.
public struct PlainPixels: Sendable {
    public let pixels: [UInt8]
    public let width: Int
    public let height: Int
    public let bands: Int

    public init(pixels: [UInt8], width: Int, height: Int, bands: Int) {
        precondition(pixels.count == width * height * bands)
        self.pixels = pixels
        self.width = width
        self.height = height
        self.bands = bands
    }

    /// A libvips image of a copy of them.
    public func image() throws -> VImage {
        try VImage.fromPixels(pixels, width: width, height: height, bands: bands)
    }
}
