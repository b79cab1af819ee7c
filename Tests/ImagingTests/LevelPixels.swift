import Foundation
import Imaging
import ScrollGeometry

/// A pyramid level's pixels as a viewer sees them, and the reference they are held to: the source
/// shrunk by dzsave's rule. Plain arrays of 8-bit interleaved pixels.
enum LevelPixels {
    /// Smooth colour (waves and a ramp): what photographs mostly are, and enough
    /// gradient everywhere for `shift` to see a fraction of a pixel.
    static func smooth(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                // Nine waves across, seven down: a dozen pixels a wave even at a thirty-second of the size.
                let (fx, fy) = (2 * Double.pi * Double(x) / Double(width), 2 * Double.pi * Double(y) / Double(height))
                let i = (y * width + x) * 3
                pixels[i] = UInt8(max(0, min(255, 128 + 60 * sin(9 * fx) + 40 * cos(7 * fy))))
                pixels[i + 1] = UInt8(max(0, min(255, 128 + 70 * sin(5 * (fx + fy)))))
                pixels[i + 2] = UInt8(x * 255 / max(1, width - 1))
            }
        }
        return pixels
    }

    /// The level stitched from its tiles, each tile's overlap cut away.
    static func stitch(_ pyramid: Pyramid, level: Int, tiles folder: String) throws -> [UInt8] {
        let size = pyramid.size(ofLevel: level)
        let grid = pyramid.tileGrid(ofLevel: level)
        let tile = pyramid.tileSize
        var pieces: [VImage] = []
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let rect = pyramid.tileRect(level: level, column: column, row: row)
                let image = try VImage.open("\(folder)/\(level)/\(column)_\(row).jpeg")
                pieces.append(try image.crop(x: column * tile - rect.x, y: row * tile - rect.y,
                                             width: min(tile, size.width - column * tile),
                                             height: min(tile, size.height - row * tile)))
            }
        }
        return try VImage.join(pieces, across: grid.columns).crop(x: 0, y: 0, width: size.width, height: size.height).pixels()
    }

    /// The source shrunk by `factor` (a power of two) as dzsave makes each level from the one below: a
    /// pixel is the mean of a 2 x 2 block of the finer level, an odd side's last column or row averaged
    /// with a copy of itself. Means are kept unrounded until the end.
    static func boxShrunk(_ pixels: [UInt8], width: Int, height: Int, bands: Int, factor: Int) -> [UInt8] {
        var level = pixels.map(Double.init), (w, h) = (width, height), remaining = factor
        while remaining > 1 {
            let (outWidth, outHeight) = ((w + 1) / 2, (h + 1) / 2)
            var out = [Double](repeating: 0, count: outWidth * outHeight * bands)
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    for band in 0..<bands {
                        var sum = 0.0
                        for y in [2 * oy, min(2 * oy + 1, h - 1)] {
                            for x in [2 * ox, min(2 * ox + 1, w - 1)] { sum += level[(y * w + x) * bands + band] }
                        }
                        out[(oy * outWidth + ox) * bands + band] = sum / 4
                    }
                }
            }
            (level, w, h, remaining) = (out, outWidth, outHeight, remaining / 2)
        }
        return level.map { UInt8(max(0, min(255, $0.rounded()))) }
    }

    /// The displacement of `image` against `reference` in pixels, by least squares on the reference's
    /// gradient (`image - reference ≈ gx * dx + gy * dy`, over the mean of the bands).
    static func shift(of image: [UInt8], against reference: [UInt8], width: Int, height: Int, bands: Int)
        -> (x: Double, y: Double) {
        func value(_ pixels: [UInt8], _ x: Int, _ y: Int) -> Double {
            var sum = 0.0
            for band in 0..<bands { sum += Double(pixels[(y * width + x) * bands + band]) }
            return sum / Double(bands)
        }
        var (xx, xy, yy, xd, yd) = (0.0, 0.0, 0.0, 0.0, 0.0)
        guard width > 2, height > 2 else { return (0, 0) }
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let gx = (value(reference, x + 1, y) - value(reference, x - 1, y)) / 2
                let gy = (value(reference, x, y + 1) - value(reference, x, y - 1)) / 2
                let d = value(image, x, y) - value(reference, x, y)
                xx += gx * gx; xy += gx * gy; yy += gy * gy; xd += gx * d; yd += gy * d
            }
        }
        let determinant = xx * yy - xy * xy
        guard determinant != 0 else { return (0, 0) }
        // Positive when the image's content sits to the left of (above) the reference's.
        return ((yy * xd - xy * yd) / determinant, (xx * yd - xy * xd) / determinant)
    }
}
