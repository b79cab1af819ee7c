import Foundation

/// Paints the square demo image: the Mandelbrot set with smooth escape-time colouring.
///
/// Zoomed out it is the familiar cardioid; zoomed in, the filaments and miniature
/// copies along the boundary resolve down to single pixels.
struct MandelbrotPainter {
    let size: Int
    var maxIterations = 400

    init(size: Int = 2048) {
        self.size = size
    }

    /// The complex plane shown: centre and the span of one side.
    private let centerReal = -0.65, centerImaginary = 0.0, span = 2.9

    private static let palette = [
        RGBColor(0, 7, 100), RGBColor(32, 107, 203), RGBColor(237, 255, 255), RGBColor(255, 170, 0),
        RGBColor(120, 30, 0), RGBColor(0, 2, 30), RGBColor(0, 7, 100),
    ]

    func paint() -> PixelCanvas {
        var canvas = PixelCanvas(width: size, height: size)
        let size = self.size, step = span / Double(size), maxIterations = self.maxIterations
        let left = centerReal - span / 2, top = centerImaginary + span / 2
        // The palette is sampled once into a table: the inner loop then only indexes it.
        let table = (0..<1024).map { RGBColor.gradient(Self.palette, at: Double($0) / 1023) }
        canvas.withBytes { bytes in
            for py in 0..<size {
                let ci = top - (Double(py) + 0.5) * step
                for px in 0..<size {
                    let cr = left + (Double(px) + 0.5) * step
                    let color: RGBColor
                    if let smooth = Self.escapeTime(cr, ci, maxIterations: maxIterations) {
                        // Cycle the palette every 64 iterations, on a log scale so bands widen outward.
                        let t = (log2(smooth + 1) * 0.35).truncatingRemainder(dividingBy: 1)
                        color = table[Int(t * 1023)]
                    } else {
                        color = .black
                    }
                    let i = (py * size + px) * 3
                    bytes[i] = color.red
                    bytes[i + 1] = color.green
                    bytes[i + 2] = color.blue
                }
            }
        }
        return canvas
    }

    /// Smooth (fractional) iteration count at which c escapes, or nil inside the set.
    static func escapeTime(_ cr: Double, _ ci: Double, maxIterations: Int) -> Double? {
        // The main cardioid and the period-2 bulb are inside: skip them outright.
        let q = (cr - 0.25) * (cr - 0.25) + ci * ci
        if q * (q + (cr - 0.25)) <= 0.25 * ci * ci { return nil }
        if (cr + 1) * (cr + 1) + ci * ci <= 0.0625 { return nil }
        var zr = 0.0, zi = 0.0, zr2 = 0.0, zi2 = 0.0
        var iteration = 0
        while iteration < maxIterations {
            zi = 2 * zr * zi + ci
            zr = zr2 - zi2 + cr
            zr2 = zr * zr
            zi2 = zi * zi
            iteration += 1
            if zr2 + zi2 > 256 {
                let logModulus = log(zr2 + zi2) / 2
                return Double(iteration) + 1 - log2(logModulus / log(2.0))
            }
        }
        return nil
    }
}
