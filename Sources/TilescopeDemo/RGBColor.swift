/// An 8-bit sRGB colour, with the blending the demo painters need.
public struct RGBColor: Hashable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// From components in 0...1 (clamped).
    public init(unit red: Double, _ green: Double, _ blue: Double) {
        self.init(Self.byte(red), Self.byte(green), Self.byte(blue))
    }

    /// `self` moved toward `other` by `amount` (0 = self, 1 = other), in 1/256 steps.
    /// Integer arithmetic: painters call this per pixel, and debug builds are slow at
    /// converting to and from Double.
    public func mixed(with other: RGBColor, _ amount: Double) -> RGBColor {
        let t = Int(min(max(amount, 0), 1) * 256)
        func lerp(_ a: UInt8, _ b: UInt8) -> UInt8 {
            UInt8(truncatingIfNeeded: (Int(a) * (256 - t) + Int(b) * t + 128) >> 8)
        }
        return RGBColor(lerp(red, other.red), lerp(green, other.green), lerp(blue, other.blue))
    }

    /// Each component times `factor` (clamped), for shading.
    public func scaled(_ factor: Double) -> RGBColor {
        RGBColor(unit: Double(red) / 255 * factor, Double(green) / 255 * factor, Double(blue) / 255 * factor)
    }

    /// Samples a piecewise-linear gradient of evenly spaced stops at `t` in 0...1.
    public static func gradient(_ stops: [RGBColor], at t: Double) -> RGBColor {
        precondition(!stops.isEmpty)
        guard stops.count > 1 else { return stops[0] }
        let position = min(max(t, 0), 1) * Double(stops.count - 1)
        let index = min(Int(position), stops.count - 2)
        return stops[index].mixed(with: stops[index + 1], position - Double(index))
    }

    private static func byte(_ unit: Double) -> UInt8 {
        UInt8(min(max(unit, 0), 1) * 255 + 0.5)
    }

    public static let black = RGBColor(0, 0, 0)
    public static let white = RGBColor(255, 255, 255)
}
