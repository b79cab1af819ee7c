import Foundation
import Imaging
import ScrollGeometry

/// Source images made by the tests: nothing is downloaded or committed.
public enum TestImages {
    public static func folder(_ label: String = #function) throws -> String {
        try TestScratch.folder(label)
    }

    /// A colour pattern with detail at every scale; `seed` changes it.
    public static func pixels(width: Int, height: Int, seed: Int = 0) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 3
                    out[i] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) + seed * 40)
                    out[i + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                    out[i + 2] = UInt8(truncatingIfNeeded: ((x / 16) ^ (y / 16)) * 37 + seed * 90)
                }
            }
        }
        return pixels
    }

    public static func writePNG(width: Int, height: Int, to path: String, seed: Int = 0) throws {
        let image = try VImage.fromPixels(pixels(width: width, height: height, seed: seed), width: width, height: height, bands: 3)
        try Data(image.pngData()).write(to: URL(fileURLWithPath: path))
    }

    public static func writeJPEG(width: Int, height: Int, to path: String, seed: Int = 0) throws {
        let image = try VImage.fromPixels(pixels(width: width, height: height, seed: seed), width: width, height: height, bands: 3)
        try image.saveJPEG(to: path, quality: 90)
    }

    /// The pattern as a TIFF with an alpha channel that varies across the image.
    public static func writeAlphaTIFF(width: Int, height: Int, to path: String) throws {
        let rgb = pixels(width: width, height: height)
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            rgba[index * 4] = rgb[index * 3]
            rgba[index * 4 + 1] = rgb[index * 3 + 1]
            rgba[index * 4 + 2] = rgb[index * 3 + 2]
            rgba[index * 4 + 3] = UInt8(truncatingIfNeeded: index % 256)
        }
        let image = try VImage.fromPixels(rgba, width: width, height: height, bands: 4)
        try Data(image.encoded(as: .tiff)).write(to: URL(fileURLWithPath: path))
    }

    /// A transparent source: the pattern under an alpha that runs from clear at the left to opaque at the right,
    /// its top 16 rows wholly clear (pixels whose colour no answer should show); `grey`: one band and alpha.
    public static func writeTransparentPNG(width: Int, height: Int, to path: String, grey: Bool = false) throws {
        let rgb = pixels(width: width, height: height)
        let bands = grey ? 2 : 4
        var out = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                let alpha = y < 16 ? 0 : UInt8(x * 255 / max(1, width - 1))
                if grey {
                    out[index * 2] = rgb[index * 3 + 1]
                    out[index * 2 + 1] = alpha
                } else {
                    for band in 0..<3 { out[index * 4 + band] = rgb[index * 3 + band] }
                    out[index * 4 + 3] = alpha
                }
            }
        }
        let image = try VImage.fromPixels(out, width: width, height: height, bands: bands)
        try Data(image.pngData()).write(to: URL(fileURLWithPath: path))
    }

    public static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sum = 0.0
        for i in a.indices {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}

extension TestImages {
    /// The same pattern written as PNG (a lossless source).
    public static func pattern(width: Int, height: Int, at path: String) throws {
        try writePNG(width: width, height: height, to: path)
    }

    /// A pattern source (`{folder}/source.png`) and the pyramid `PyramidBuilder` makes of it in
    /// `{folder}/pyramid` (tiles under `pyramid/image_files/`), in a fresh folder.
    public static func builtPyramid(width: Int, height: Int, label: String = #function) throws
        -> (pyramid: Pyramid, source: String, out: String) {
        let folder = try folder(label)
        let source = folder + "/source.png"
        try pattern(width: width, height: height, at: source)
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        return (try PyramidBuilder().build(source: source, into: out), source, out)
    }
}
