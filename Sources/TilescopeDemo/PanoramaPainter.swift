import Foundation

/// Paints the wide demo image: mountain ranges at dusk, under a rising moon, above a lake
/// that mirrors them.
///
/// Zoomed out it reads as a landscape; zoomed in, single-pixel stars, snow lines,
/// individual fir trees on the nearest ridge and ripples in the reflection appear.
struct PanoramaPainter {
    let width: Int
    let height: Int

    init(width: Int = 4800, height: Int = 1600) {
        self.width = width
        self.height = height
    }

    /// One mountain range: where its ridge lies and how it is coloured.
    private struct Range {
        var base: Double        // ridge height above the horizon at its lowest, in image heights
        var amplitude: Double   // how much higher its peaks reach, in image heights
        var scale: Double       // horizontal feature size, in image widths
        var color: RGBColor
        var haze: Double        // how much the sky colour shows through (distance)
        var snowLine: Double    // height above the horizon where snow starts (image heights)
        var seed: Int
    }

    private var horizon: Int { Int(Double(height) * 0.64) }

    private let ranges = [
        Range(base: 0.16, amplitude: 0.30, scale: 0.22, color: RGBColor(92, 98, 150), haze: 0.42,
              snowLine: 0.34, seed: 11),
        Range(base: 0.10, amplitude: 0.22, scale: 0.15, color: RGBColor(56, 62, 112), haze: 0.26,
              snowLine: 0.27, seed: 23),
        Range(base: 0.04, amplitude: 0.14, scale: 0.09, color: RGBColor(30, 38, 70), haze: 0.12,
              snowLine: 2, seed: 37),
        Range(base: 0.00, amplitude: 0.07, scale: 0.05, color: RGBColor(12, 22, 30), haze: 0.0,
              snowLine: 2, seed: 41),
    ]

    private let skyStops = [
        RGBColor(8, 12, 38), RGBColor(28, 36, 92), RGBColor(96, 74, 140), RGBColor(232, 128, 92),
        RGBColor(255, 200, 130),
    ]

    func paint() -> PixelCanvas {
        var canvas = PixelCanvas(width: width, height: height)
        let horizon = self.horizon
        let sky = (0..<horizon).map { RGBColor.gradient(skyStops, at: pow(Double($0) / Double(horizon), 1.6)) }
        let ridges = ranges.map { ridgeRows(of: $0) }
        let slopes = ranges.map { slopeRow(of: $0) }
        let snowLines = ranges.map { snowLineRow(of: $0) }
        let trees = treeTops(above: ridges[ranges.count - 1])
        let moonX = Double(width) * 0.8, moonY = Double(height) * 0.14
        let moonRadius = Double(height) * 0.028
        let width = self.width, ranges = self.ranges, horizonColor = skyStops[skyStops.count - 1]

        canvas.withBytes { bytes in
            for y in 0..<horizon {
                let skyColor = sky[y]
                for x in 0..<width {
                    var color = skyColor
                    // The nearest range whose ridge is above this pixel, if any.
                    var layer = ranges.count - 1
                    while layer >= 0, Double(y) < ridges[layer][x] { layer -= 1 }
                    if layer == ranges.count - 1 || Double(y) >= trees[x] {
                        color = mountain(ranges[ranges.count - 1], x: x, y: y, ridges: ridges[ranges.count - 1],
                                         slopes: slopes[ranges.count - 1], snowLines: snowLines[ranges.count - 1],
                                         skyAtY: skyColor, horizonColor: horizonColor)
                    } else if layer >= 0 {
                        color = mountain(ranges[layer], x: x, y: y, ridges: ridges[layer], slopes: slopes[layer],
                                         snowLines: snowLines[layer],
                                         skyAtY: skyColor, horizonColor: horizonColor)
                    } else {
                        color = skyPixel(skyColor, x: x, y: y, moonX: moonX, moonY: moonY, moonRadius: moonRadius)
                    }
                    let i = (y * width + x) * 3
                    bytes[i] = color.red
                    bytes[i + 1] = color.green
                    bytes[i + 2] = color.blue
                }
            }
            reflect(into: bytes, horizon: horizon)
        }
        return canvas
    }

    /// The row where each column's ridge starts (smaller is higher).
    private func ridgeRows(of range: Range) -> [Double] {
        let h = Double(height), w = Double(width), horizon = Double(self.horizon)
        return (0..<width).map { x in
            let n = DemoNoise.fractal(Double(x) / (w * range.scale), octaves: 9, persistence: 0.52, seed: range.seed)
            // Sharpen the peaks: noise near 1 rises faster than noise near 0.
            return horizon - h * (range.base + range.amplitude * n * n * 1.6)
        }
    }

    /// Fir trees along the nearest ridge: each column's top row of tree, or +infinity.
    private func treeTops(above ridge: [Double]) -> [Double] {
        var tops = [Double](repeating: .infinity, count: width)
        let spacing = 9
        for k in 0..<(width / spacing + 1) {
            let center = k * spacing + Int(DemoNoise.unit(k, seed: 5) * Double(spacing))
            guard center < width, DemoNoise.unit(k, seed: 6) < 0.8 else { continue }
            let treeHeight = 14 + DemoNoise.unit(k, seed: 7) * 26
            let halfWidth = treeHeight * 0.28
            let foot = ridge[center] + 4
            for x in max(0, center - Int(halfWidth))...min(width - 1, center + Int(halfWidth)) {
                let top = foot - treeHeight * (1 - abs(Double(x - center)) / halfWidth)
                tops[x] = min(tops[x], top)
            }
        }
        return tops
    }

    private func mountain(_ range: Range, x: Int, y: Int, ridges: [Double], slopes: [Double],
                          snowLines: [Double], skyAtY: RGBColor,
                          horizonColor: RGBColor) -> RGBColor {
        let depth = Double(y) - ridges[x]
        // Light from the moon on the right: slopes facing it are lighter. The slope comes
        // from a smoothed ridge, so fine jaggedness does not streak the whole face.
        let slope = slopes[x]
        let light = max(-0.25, min(0.3, slope * 0.01)) * exp(-depth / 150)
        // Moonlight catches the crests: a soft rim just below each ridge line.
        var color = range.color.scaled(1 + light + 0.14 * exp(-depth / 90))
        let heightAbove = (Double(horizon) - Double(y)) / Double(height)
        if heightAbove > snowLines[x] {
            color = color.mixed(with: RGBColor(226, 222, 240).scaled(1 + light), 0.8)
        }
        // Mist gathers at the foot of each range, so the ranges separate.
        let mist = exp(-heightAbove * 22) * 0.4 + range.haze
        return color.mixed(with: horizonColor.mixed(with: skyAtY, 0.5), mist)
    }

    /// A ragged snow line per column, in image heights above the horizon: fractal in x,
    /// so it keeps its detail as you zoom in.
    private func snowLineRow(of range: Range) -> [Double] {
        (0..<width).map { x in
            range.snowLine
                + (DemoNoise.fractal(Double(x) / 90, octaves: 6, persistence: 0.6, seed: range.seed + 1) - 0.5) * 0.07
        }
    }

    /// How steeply each column's face rises toward the right, from the ridge's broad shape
    /// (a few octaves only, over 24 px), in pixels.
    private func slopeRow(of range: Range) -> [Double] {
        let broad = (-12..<(width + 12)).map { x in
            let n = DemoNoise.fractal(Double(x) / (Double(width) * range.scale), octaves: 4, persistence: 0.52,
                                      seed: range.seed)
            return Double(height) * range.amplitude * n * n * 1.6
        }
        return (0..<width).map { broad[$0 + 24] - broad[$0] }
    }

    private func skyPixel(_ base: RGBColor, x: Int, y: Int, moonX: Double, moonY: Double, moonRadius: Double) -> RGBColor {
        let dx = Double(x) - moonX, dy = Double(y) - moonY
        let distance = (dx * dx + dy * dy).squareRoot()
        if distance < moonRadius {
            // The moon, with faint maria.
            let mare = DemoNoise.value(Double(x) / 9 + Double(y) / 23, seed: 4)
            return RGBColor(246, 240, 220).scaled(0.9 + 0.1 * mare)
        }
        var color = base.mixed(with: RGBColor(200, 200, 230), 0.5 * exp(-(distance - moonRadius) / (moonRadius * 1.5)))
        // Stars: rare single pixels, brighter higher up, only visible when zoomed in.
        let starChance = DemoNoise.unit(x, y, seed: 99)
        let altitude = 1 - Double(y) / Double(horizon)
        if starChance > 0.9992, altitude > 0.45 {
            color = color.mixed(with: .white, (altitude - 0.45) * 2 * (0.5 + DemoNoise.unit(y, x, seed: 3) * 0.5))
        }
        return color
    }

    /// The lake: each row below the horizon mirrors a row above, shifted by ripples and darkened.
    private func reflect(into bytes: UnsafeMutableBufferPointer<UInt8>, horizon: Int) {
        let water = RGBColor(20, 34, 60)
        for y in horizon..<height {
            let depth = Double(y - horizon)
            let source = max(0, 2 * horizon - y - 1)
            let fade = min(0.85, 0.18 + depth / Double(height - horizon) * 0.7)
            for x in 0..<width {
                let ripple = Foundation.sin(depth * 0.9 + Foundation.sin(Double(x) * 0.013) * 3) * (1 + depth * 0.03)
                let sx = min(max(x + Int(ripple), 0), width - 1)
                let i = (source * width + sx) * 3
                let mirrored = RGBColor(bytes[i], bytes[i + 1], bytes[i + 2])
                let color = mirrored.mixed(with: water, fade)
                let o = (y * width + x) * 3
                bytes[o] = color.red
                bytes[o + 1] = color.green
                bytes[o + 2] = color.blue
            }
        }
    }
}
