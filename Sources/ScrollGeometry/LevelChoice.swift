import Foundation  // log2 only

/// Rules 6-8: the needed pixel density, the preview level, the preview-to-tiles swap and the tile level.
public struct LevelChoice: Hashable, Sendable {
    /// Rule 6: `d = zoomScale x scale`, device pixels per image pixel.
    public let density: Double
    /// Rule 7: the largest level whose sides are both at most 1024.
    public let previewLevel: Int
    /// Rule 8: the zoomScale at which the swap happens for this screen scale, `s(P) / scale`.
    public let threshold: Double
    public let resolution: Resolution

    public static let previewMaxSide = 1024

    public init(pyramid: Pyramid, zoomScale: Double, scale: Double) {
        let previewLevel = pyramid.previewLevel(maxSide: Self.previewMaxSide)
        let previewScale = pyramid.scale(ofLevel: previewLevel)
        let density = zoomScale * scale
        self.density = density
        self.previewLevel = previewLevel
        self.threshold = previewScale / scale
        if Tolerance.lessOrEqual(density, previewScale) {
            resolution = .low
        } else {
            resolution = .high(level: Self.level(forDensity: density, in: pyramid))
        }
    }

    /// `clamp(maxLevel + ceil(log2(d)), 0, maxLevel)`: the smallest level at least as sharp as the screen.
    /// Clamped before leaving floating point so that no density can trap the conversion to `Int`.
    public static func level(forDensity density: Double, in pyramid: Pyramid) -> Int {
        let maxLevel = Double(pyramid.maxLevel)
        let level = maxLevel + Tolerance.ceil(log2(density))
        guard level > 0 else { return 0 }
        return Int(min(level, maxLevel))
    }
}
