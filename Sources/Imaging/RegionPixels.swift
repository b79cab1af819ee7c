import CTileDecoder
import Foundation
import ScrollGeometry

/// 8-bit pixels of a region in plain memory (RGB, or grey for one band): what the pyramid's tiles
/// decode to, resized and encoded without a libvips pipeline.
///
/// Why: a region request that needs nothing but a resize and a JPEG encoding (the IIIF requests
/// viewers and thumbnails make) spent a third of its CPU in libvips's machinery around the work.
/// Rotations, mirroring, qualities and other formats take the pixels into libvips (`image()`).
public final class RegionPixels {
    let buffer: VImage.PixelBuffer
    public let width: Int
    public let height: Int
    public let bands: Int
    private var handedOver = false

    init(width: Int, height: Int, bands: Int) throws {
        buffer = try VImage.PixelBuffer(byteCount: width * height * bands)
        self.width = width
        self.height = height
        self.bands = bands
    }

    var stride: Int { width * bands }

    /// Scaled to exactly `size` with a triangle filter (`ts_resize_linear`): an antialiased linear
    /// average when shrinking, bilinear interpolation when enlarging.
    public func resized(to size: PixelSize) throws -> RegionPixels {
        if size.width == width && size.height == height { return self }
        let out = try RegionPixels(width: size.width, height: size.height, bands: bands)
        try JPEGTile.check {
            ts_resize_linear(buffer.bytes, stride, Int32(width), Int32(height), Int32(bands),
                             out.buffer.bytes, out.stride, Int32(size.width), Int32(size.height), $0, $1)
        }
        return out
    }

    /// A baseline JPEG at `quality`, with libvips's jpegsave defaults (4:2:0 below quality 90).
    public func jpegData(quality: Int) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        try JPEGTile.check {
            ts_jpeg_encode(buffer.bytes, stride, Int32(width), Int32(height), Int32(bands), Int32(quality),
                           &out, &size, $0, $1)
        }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// A copy of the pixels, interleaved, row after row (what `LumaSSIM` and `VImage.fromPixels` take).
    public var bytes: [UInt8] {
        precondition(!handedOver, "RegionPixels read after being handed to libvips")
        return Array(UnsafeBufferPointer(start: buffer.bytes, count: width * height * bands))
    }

    /// The pixels copied out, before `image()` takes them over.
    public func copy() -> PlainPixels {
        PlainPixels(pixels: bytes, width: width, height: height, bands: bands)
    }

    /// A libvips image that takes the memory over: these pixels are not to be used after it.
    public func image() throws -> VImage {
        precondition(!handedOver, "RegionPixels handed to libvips twice")
        handedOver = true
        return try VImage(pixels: buffer, width: width, height: height, bands: bands)
    }
}
