import Foundation

/// Paints the small demo image: a hue and saturation wheel above a grey step wedge.
///
/// It is smaller than the 1024 px preview limit, so clients only ever need its preview;
/// the wheel and the sixteen grey steps show colour or tone shifts at a glance.
struct ColourWheelPainter {
    let width: Int
    let height: Int

    init(width: Int = 900, height: Int = 600) {
        self.width = width
        self.height = height
    }

    func paint() -> PixelCanvas {
        var canvas = PixelCanvas(width: width, height: height)
        let width = self.width, height = self.height
        let wedgeTop = height - 70
        let cx = Double(width) / 2, cy = Double(wedgeTop) / 2 + 10, radius = Double(wedgeTop) / 2 - 24
        canvas.withBytes { bytes in
            for y in 0..<wedgeTop {
                let backdrop = RGBColor(18, 20, 30).mixed(with: RGBColor(46, 52, 76), Double(y) / Double(wedgeTop))
                for x in 0..<width {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                    let distance = (dx * dx + dy * dy).squareRoot()
                    var color = backdrop
                    if distance <= radius + 1 {
                        let hue = (atan2(-dy, dx) / (2 * Double.pi) + 1).truncatingRemainder(dividingBy: 1)
                        let wheel = Self.hsv(hue: hue, saturation: min(distance / radius, 1), value: 1)
                        // One pixel of antialiasing on the rim.
                        color = backdrop.mixed(with: wheel, min(1, radius + 1 - distance))
                    }
                    let i = (y * width + x) * 3
                    bytes[i] = color.red
                    bytes[i + 1] = color.green
                    bytes[i + 2] = color.blue
                }
            }
        }
        let steps = 16
        for step in 0..<steps {
            let level = UInt8(step * 255 / (steps - 1))
            let left = step * width / steps, right = (step + 1) * width / steps
            canvas.fill(.init(x: left, y: wedgeTop, width: right - left, height: height - wedgeTop),
                        with: RGBColor(level, level, level))
        }
        return canvas
    }

    /// HSV (all in 0...1) to RGB.
    static func hsv(hue: Double, saturation: Double, value: Double) -> RGBColor {
        let h = hue * 6
        let sector = Int(h) % 6
        let f = h - Double(Int(h))
        let p = value * (1 - saturation), q = value * (1 - saturation * f), t = value * (1 - saturation * (1 - f))
        switch sector {
        case 0: return RGBColor(unit: value, t, p)
        case 1: return RGBColor(unit: q, value, p)
        case 2: return RGBColor(unit: p, value, t)
        case 3: return RGBColor(unit: p, q, value)
        case 4: return RGBColor(unit: t, p, value)
        default: return RGBColor(unit: value, p, q)
        }
    }
}
