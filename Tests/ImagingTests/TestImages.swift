import Foundation
@testable import Imaging

/// Source images made by the tests themselves: nothing is downloaded or committed.
enum TestImages {
    /// A temporary folder removed when the test process ends... or left for inspection under /tmp.
    static func folder(_ name: String = #function) throws -> String {
        let path = NSTemporaryDirectory() + "tilescope-imaging-\(getpid())-\(name.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A smooth colour pattern with detail at every scale, written as PNG (lossless source).
    static func pattern(width: Int, height: Int, at path: String) throws {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = UInt8(truncatingIfNeeded: 128 + Int(100 * Foundation.sin(Double(x * x + y * y) / 5000)))
            }
        }
        let png = try VImage.fromPixels(pixels, width: width, height: height, bands: 3).pngData()
        try Data(png).write(to: URL(fileURLWithPath: path))
    }

    /// Peak signal-to-noise ratio of two same-sized 8-bit images, in dB (infinity if equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
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
