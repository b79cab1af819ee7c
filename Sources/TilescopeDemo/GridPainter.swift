import Foundation
import ScrollGeometry

/// Paints the calibration demo image: a labelled coordinate grid.
///
/// Every cell is labelled with the image coordinates of its top-left corner, and two
/// diagonals and a circle run across all cells: a tile drawn in the wrong place, scaled
/// wrongly or seamed shows as a wrong label, a broken line or a kink.
public struct GridPainter: Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int = 4000, height: Int = 3000) {
        self.width = width
        self.height = height
    }

    /// Major lines (and labels) every `cellSize` pixels; deliberately not the tile size
    /// (254), so tile seams fall inside cells where they show.
    public static let cellSize = 250
    public static let minorStep = 50
    public static let labelScale = 4
    public static let labelInset = 8
    public static let labelColor = RGBColor(16, 20, 32)
    public static let labelBackground = RGBColor(255, 255, 255)

    /// The text in cell (`column`, `row`): the coordinates of its top-left corner.
    public static func label(column: Int, row: Int) -> String {
        "\(column * cellSize),\(row * cellSize)"
    }

    /// Where the first glyph of a cell's label starts, in image pixels.
    public static func labelOrigin(column: Int, row: Int) -> PixelRect {
        let text = label(column: column, row: row)
        return PixelRect(x: column * cellSize + labelInset, y: row * cellSize + labelInset,
                         width: BitmapFont.width(of: text, scale: labelScale),
                         height: BitmapFont.height(scale: labelScale))
    }

    public var columns: Int { (width + Self.cellSize - 1) / Self.cellSize }
    public var rows: Int { (height + Self.cellSize - 1) / Self.cellSize }

    public func paint() -> PixelCanvas {
        var canvas = PixelCanvas(width: width, height: height)
        let size = Self.cellSize
        for row in 0..<rows {
            for column in 0..<columns {
                let tint = (row + column) % 2 == 0 ? RGBColor(232, 240, 252) : RGBColor(252, 244, 230)
                canvas.fill(.init(x: column * size, y: row * size, width: size, height: size), with: tint)
            }
        }
        let minor = RGBColor(196, 204, 218), major = RGBColor(40, 64, 140)
        for x in stride(from: 0, to: width, by: Self.minorStep) {
            canvas.fill(.init(x: x, y: 0, width: 1, height: height), with: minor)
        }
        for y in stride(from: 0, to: height, by: Self.minorStep) {
            canvas.fill(.init(x: 0, y: y, width: width, height: 1), with: minor)
        }
        for x in stride(from: 0, to: width, by: size) {
            canvas.fill(.init(x: x, y: 0, width: 2, height: height), with: major)
        }
        for y in stride(from: 0, to: height, by: size) {
            canvas.fill(.init(x: 0, y: y, width: width, height: 2), with: major)
        }
        drawCrossingLines(&canvas)
        for row in 0..<rows {
            for column in 0..<columns {
                let origin = Self.labelOrigin(column: column, row: row)
                canvas.fill(.init(x: origin.x - 4, y: origin.y - 4, width: origin.width + 8, height: origin.height + 8),
                            with: Self.labelBackground)
                canvas.drawText(Self.label(column: column, row: row), x: origin.x, y: origin.y,
                                scale: Self.labelScale, color: Self.labelColor)
            }
        }
        return canvas
    }

    /// Both diagonals and a centred circle, 3 px wide, crossing every tile boundary.
    private func drawCrossingLines(_ canvas: inout PixelCanvas) {
        let red = RGBColor(210, 40, 40), green = RGBColor(20, 150, 70)
        for y in 0..<height {
            let x = Int(Double(y) * Double(width) / Double(height))
            canvas.fill(.init(x: x - 1, y: y, width: 3, height: 1), with: red)
            canvas.fill(.init(x: width - 1 - x - 1, y: y, width: 3, height: 1), with: red)
        }
        let cx = Double(width) / 2, cy = Double(height) / 2, radius = Double(min(width, height)) * 0.45
        let steps = Int(radius * 2 * Double.pi * 2)
        for step in 0..<steps {
            let angle = Double(step) / Double(steps) * 2 * Double.pi
            let x = Int(cx + radius * cos(angle)), y = Int(cy + radius * sin(angle))
            canvas.fill(.init(x: x - 1, y: y - 1, width: 3, height: 3), with: green)
        }
    }
}
