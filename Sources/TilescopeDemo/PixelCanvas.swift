import Imaging
import ScrollGeometry

/// An 8-bit RGB pixel buffer that demo painters draw into before libvips encodes it.
///
/// Painters that touch every pixel use `withRows` (a raw buffer, fast even in debug
/// builds); `fill` and `drawText` cover shapes and labels.
public struct PixelCanvas: Sendable {
    public let width: Int
    public let height: Int
    public private(set) var pixels: [UInt8]

    public init(width: Int, height: Int, color: RGBColor = .black) {
        precondition(width > 0 && height > 0)
        self.width = width
        self.height = height
        var row = [UInt8](repeating: 0, count: width * 3)
        for x in 0..<width {
            row[x * 3] = color.red
            row[x * 3 + 1] = color.green
            row[x * 3 + 2] = color.blue
        }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for _ in 0..<height { pixels.append(contentsOf: row) }
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> RGBColor {
        get {
            let i = (y * width + x) * 3
            return RGBColor(pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.red
            pixels[i + 1] = newValue.green
            pixels[i + 2] = newValue.blue
        }
    }

    /// Gives `body` the raw interleaved RGB bytes (row stride `width * 3`).
    public mutating func withBytes<T>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try pixels.withUnsafeMutableBufferPointer { try body($0) }
    }

    /// Fills `rect`, clipped to the canvas.
    public mutating func fill(_ rect: PixelRect, with color: RGBColor) {
        let x0 = max(rect.x, 0), x1 = min(rect.x + rect.width, width)
        let y0 = max(rect.y, 0), y1 = min(rect.y + rect.height, height)
        guard x0 < x1, y0 < y1 else { return }
        let stride = width
        withBytes { bytes in
            for y in y0..<y1 {
                var i = (y * stride + x0) * 3
                for _ in x0..<x1 {
                    bytes[i] = color.red
                    bytes[i + 1] = color.green
                    bytes[i + 2] = color.blue
                    i += 3
                }
            }
        }
    }

    /// Blends `color` over `rect` with the given opacity (0...1), clipped to the canvas.
    public mutating func shade(_ rect: PixelRect, with color: RGBColor, opacity: Double) {
        let x0 = max(rect.x, 0), x1 = min(rect.x + rect.width, width)
        let y0 = max(rect.y, 0), y1 = min(rect.y + rect.height, height)
        guard x0 < x1, y0 < y1 else { return }
        let a = Int(min(max(opacity, 0), 1) * 256)
        let stride = width
        let ink = [Int(color.red), Int(color.green), Int(color.blue)]
        withBytes { bytes in
            for y in y0..<y1 {
                var i = (y * stride + x0) * 3
                for _ in x0..<x1 {
                    for band in 0..<3 {
                        let old = Int(bytes[i + band])
                        bytes[i + band] = UInt8(old + ((ink[band] - old) * a) >> 8)
                    }
                    i += 3
                }
            }
        }
    }

    /// Draws `text` with its top-left corner at (`x`, `y`), each font pixel a `scale` square.
    /// Characters the font lacks are left blank.
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int, color: RGBColor) {
        for (index, character) in text.enumerated() {
            let left = x + index * BitmapFont.advance * scale
            for row in 0..<BitmapFont.glyphHeight {
                for column in 0..<BitmapFont.glyphWidth
                where BitmapFont.isInk(character, column: column, row: row) {
                    fill(PixelRect(x: left + column * scale, y: y + row * scale, width: scale, height: scale),
                         with: color)
                }
            }
        }
    }

    /// The canvas as a libvips image (the pixels are copied).
    public func image() throws -> VImage {
        try VImage.fromPixels(pixels, width: width, height: height, bands: 3)
    }
}
