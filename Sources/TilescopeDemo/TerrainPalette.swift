/// The colours of the gigapixel's imaginary archipelago: height (0...254) to RGB, sea
/// below `seaLevel`. Smooth ramps only: a one-level step must never show as a line.
/// Levels from `inkLevel` up are the coordinate grid's ink.
struct TerrainPalette {
    var seaLevel = 126
    static let inkLevel = 255
    static let ink = RGBColor(8, 10, 24)

    /// `count` RGB entries, interleaved: a lookup table for libvips's maplut.
    func table(count: Int) -> [UInt8] {
        (0..<count).flatMap { level -> [UInt8] in
            let color = level >= Self.inkLevel ? Self.ink : self.color(atLevel: level)
            return [color.red, color.green, color.blue]
        }
    }

    func color(atLevel level: Int) -> RGBColor {
        if level < seaLevel {
            let depth = Double(level) / Double(seaLevel)
            let water = RGBColor.gradient([RGBColor(6, 18, 58), RGBColor(16, 60, 120), RGBColor(40, 128, 170),
                                           RGBColor(110, 200, 205)], at: depth * depth)
            return water
        }
        let height = Double(level - seaLevel) / Double(Self.inkLevel - 1 - seaLevel)
        let land = RGBColor.gradient([
            RGBColor(232, 214, 160), RGBColor(150, 190, 90), RGBColor(70, 140, 60), RGBColor(40, 100, 52),
            RGBColor(120, 110, 80), RGBColor(150, 138, 128), RGBColor(200, 196, 196), RGBColor(250, 250, 255),
        ], at: height)
        return land
    }
}
