import Foundation

/// Paints the tall demo image: a numbered skyscraper at night among lower buildings.
///
/// Zoomed out it is a lit tower under a starry sky; zoomed in, every floor carries its
/// number in the bitmap font, windows are lit one by one, and a few have someone in them.
struct TowerPainter {
    let width: Int
    let height: Int

    init(width: Int = 1200, height: Int = 3600) {
        self.width = width
        self.height = height
    }

    static let floorHeight = 26
    static let windowWidth = 14
    static let windowPitch = 22

    /// Top row of the tower's body (the spire rises above it).
    var bodyTop: Int { height / 7 }
    /// Row where the street starts.
    var ground: Int { height - 90 }
    var floorCount: Int { (ground - bodyTop) / Self.floorHeight }

    func paint() -> PixelCanvas {
        var canvas = PixelCanvas(width: width, height: height)
        paintSky(&canvas)
        paintNeighbours(&canvas)
        paintTower(&canvas)
        paintStreet(&canvas)
        return canvas
    }

    private func paintSky(_ canvas: inout PixelCanvas) {
        let stops = [RGBColor(3, 5, 18), RGBColor(10, 16, 48), RGBColor(40, 34, 84), RGBColor(150, 70, 90),
                     RGBColor(240, 140, 80)]
        let width = self.width, height = self.height
        canvas.withBytes { bytes in
            for y in 0..<height {
                let base = RGBColor.gradient(stops, at: pow(Double(y) / Double(height), 2.2))
                for x in 0..<width {
                    var color = base
                    let star = DemoNoise.unit(x, y, seed: 71)
                    if star > 0.9985, y < height / 2 {
                        color = color.mixed(with: RGBColor(255, 250, 230), 0.4 + DemoNoise.unit(y, x, seed: 72) * 0.6)
                    }
                    let i = (y * width + x) * 3
                    bytes[i] = color.red
                    bytes[i + 1] = color.green
                    bytes[i + 2] = color.blue
                }
            }
        }
    }

    /// Lower blocks on either side, darker and with fewer lights than the tower.
    private func paintNeighbours(_ canvas: inout PixelCanvas) {
        var x = 0
        var index = 0
        while x < width {
            let blockWidth = 70 + Int(DemoNoise.unit(index, seed: 81) * 120)
            let blockHeight = Int(Double(height) * (0.08 + DemoNoise.unit(index, seed: 82) * 0.22))
            let top = ground - blockHeight
            canvas.fill(.init(x: x, y: top, width: blockWidth, height: blockHeight), with: RGBColor(14, 16, 28))
            var y = top + 12
            while y + 10 < ground {
                var wx = x + 8
                while wx + 8 < x + blockWidth - 4 {
                    if DemoNoise.unit(wx, y, seed: 83) > 0.7 {
                        canvas.fill(.init(x: wx, y: y, width: 8, height: 10), with: RGBColor(200, 170, 100))
                    }
                    wx += 16
                }
                y += 20
            }
            x += blockWidth + 6
            index += 1
        }
    }

    private func paintTower(_ canvas: inout PixelCanvas) {
        let center = width / 2
        let steel = RGBColor(34, 40, 58)
        for floor in 0..<floorCount {
            let y = ground - (floor + 1) * Self.floorHeight
            let halfWidth = towerHalfWidth(atFloor: floor)
            canvas.fill(.init(x: center - halfWidth, y: y, width: halfWidth * 2, height: Self.floorHeight), with: steel)
            // A slab line between floors.
            canvas.fill(.init(x: center - halfWidth, y: y, width: halfWidth * 2, height: 2), with: RGBColor(60, 68, 92))
            paintWindows(&canvas, floor: floor, top: y, from: center - halfWidth + 40, to: center + halfWidth - 8)
            let label = String(floor + 1)
            canvas.drawText(label, x: center - halfWidth + 6, y: y + 6, scale: 2, color: RGBColor(150, 220, 255))
        }
        paintSpire(&canvas, center: center)
    }

    /// Setbacks every 30 floors, so the silhouette steps in as it rises.
    private func towerHalfWidth(atFloor floor: Int) -> Int {
        let setbacks = floor / 30
        return 190 - setbacks * 28
    }

    private func paintWindows(_ canvas: inout PixelCanvas, floor: Int, top: Int, from left: Int, to right: Int) {
        var x = left
        var column = 0
        while x + Self.windowWidth <= right {
            let roll = DemoNoise.unit(floor, column, seed: 91)
            let color: RGBColor
            switch roll {
            case ..<0.45: color = RGBColor(255, 214, 120)  // warm light
            case ..<0.55: color = RGBColor(150, 200, 255)  // a screen's blue
            default: color = RGBColor(22, 28, 44)           // dark
            }
            canvas.fill(.init(x: x, y: top + 6, width: Self.windowWidth, height: Self.floorHeight - 10), with: color)
            if roll < 0.45, DemoNoise.unit(column, floor, seed: 92) < 0.12 {
                // Someone at the window: a head and shoulders in silhouette.
                let body = RGBColor(60, 40, 30)
                canvas.fill(.init(x: x + 5, y: top + 10, width: 4, height: 4), with: body)
                canvas.fill(.init(x: x + 3, y: top + 14, width: 8, height: Self.floorHeight - 18), with: body)
            }
            x += Self.windowPitch
            column += 1
        }
    }

    private func paintSpire(_ canvas: inout PixelCanvas, center: Int) {
        let roofTop = ground - floorCount * Self.floorHeight
        let spireTop = height / 40
        for y in spireTop..<roofTop {
            let t = Double(y - spireTop) / Double(roofTop - spireTop)
            let halfWidth = Int(2 + t * 30)
            canvas.fill(.init(x: center - halfWidth, y: y, width: halfWidth * 2, height: 1), with: RGBColor(52, 58, 80))
        }
        // A red aircraft beacon with a soft glow.
        let glow = 60
        for dy in -glow...glow {
            for dx in -glow...glow {
                let x = center + dx, y = spireTop + dy
                guard x >= 0, x < width, y >= 0, y < height else { continue }
                let distance = Double(dx * dx + dy * dy).squareRoot()
                guard distance <= Double(glow) else { continue }
                let strength = distance < 5 ? 1 : 0.6 * exp(-distance / 14)
                canvas[x, y] = canvas[x, y].mixed(with: RGBColor(255, 60, 50), strength)
            }
        }
    }

    private func paintStreet(_ canvas: inout PixelCanvas) {
        canvas.fill(.init(x: 0, y: ground, width: width, height: height - ground), with: RGBColor(20, 20, 26))
        canvas.fill(.init(x: 0, y: ground + 40, width: width, height: 4), with: RGBColor(200, 190, 120))
        var x = 30
        while x < width {
            canvas.shade(.init(x: x - 30, y: ground + 2, width: 60, height: 30), with: RGBColor(255, 200, 120), opacity: 0.25)
            canvas.fill(.init(x: x - 2, y: ground + 4, width: 4, height: 4), with: RGBColor(255, 230, 170))
            x += 120
        }
    }
}
