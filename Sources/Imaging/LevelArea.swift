import Foundation
import ScrollGeometry

/// A region of the full image on one level of a `PyramidalSource`, in the level's continuous coordinates (its
/// pixel k spans k ..< k + 1), and its resampling to an output size.
///
/// Why continuous: rounding the region out to whole level pixels and resizing those (as the Deep Zoom reader
/// does with its own tiles) puts a region that does not start on a level pixel up to half an output pixel out
/// of register, and a JPEG 2000 level, whose pixels are centred differently (`SourceLevel.offsetX`), by close
/// to half a level pixel on every read. Here every output pixel is taken from exactly where it lies.
struct LevelArea: Equatable {
    var x0: Double, y0: Double, x1: Double, y1: Double
    /// Whether the region reaches the image's right (bottom) end.
    var reachesRight: Bool, reachesBottom: Bool

    init(_ region: PixelRect, on level: SourceLevel, fullWidth: Int, fullHeight: Int) {
        x0 = Double(region.x) / level.scaleX + level.offsetX
        x1 = Double(region.x + region.width) / level.scaleX + level.offsetX
        y0 = Double(region.y) / level.scaleY + level.offsetY
        y1 = Double(region.y + region.height) / level.scaleY + level.offsetY
        reachesRight = region.x + region.width >= fullWidth
        reachesBottom = region.y + region.height >= fullHeight
    }

    var width: Double { x1 - x0 }
    var height: Double { y1 - y0 }

    /// Below a millionth of a pixel, positions are taken as equal.
    static let slack = 1e-6

    /// At least `size` of the level's pixels across and down. At the image's end up to half a pixel fewer will
    /// do: a level halved rounding up ends in a pixel standing for fewer full pixels than its share, and the
    /// short last tile of a Deep Zoom level that size (`Pyramid.levelRegion` counts that pixel whole) should come
    /// from it, not from twice the pixels.
    func isSharpEnough(for size: PixelSize) -> Bool {
        width >= Double(size.width) - (reachesRight ? 0.5 : 0) - Self.slack
            && height >= Double(size.height) - (reachesBottom ? 0.5 : 0) - Self.slack
    }

    /// Whether the level has the area's pixels, but for at most half a pixel past its last one. A level halved
    /// rounding down (libvips's `tiffsave --pyramid`, Aperio's scanners) leaves out the image's last few pixels:
    /// 187 pixels of 16 stand for 2992 of 3000, and an area to the image's end then ends at 187.5. That last half
    /// pixel is made of the level's last pixel; an area further out is for a finer level.
    func isHeld(by level: SourceLevel) -> Bool {
        x1 <= Double(level.width) + 0.5 + Self.slack && y1 <= Double(level.height) + 0.5 + Self.slack
    }

    /// The area of `level` (the level's whole image) resampled to exactly `size`: whole level pixels when the
    /// area is exactly those (a crop), else shrunk by whole factors into box means (as pyramid levels are made)
    /// until the rest is at most a halving, then interpolated bilinearly at each output pixel's centre. Lazy:
    /// only the level's tiles under the area are decoded, when the result's pixels are computed.
    func resampled(_ level: VImage, to size: PixelSize) throws -> VImage {
        if let (left, top) = crop(to: size, levelWidth: level.width, levelHeight: level.height) {
            return try level.crop(x: left, y: top, width: size.width, height: size.height)
        }
        let scaleX = Double(size.width) / width, scaleY = Double(size.height) / height
        let shrinkX = Self.wholeShrink(scaleX), shrinkY = Self.wholeShrink(scaleY)
        let source = shrinkX == 1 && shrinkY == 1 ? level : try level.shrink(horizontal: shrinkX, vertical: shrinkY)
        // On the shrunk image: shrunk pixel j is the mean of level pixels j * shrink ..< (j + 1) * shrink.
        let (left, right) = (x0 / Double(shrinkX), x1 / Double(shrinkX))
        let (top, bottom) = (y0 / Double(shrinkY), y1 / Double(shrinkY))
        // The pixels under the area and one more each side, that the interpolation reads.
        let cutX = Self.cut(left, right, side: source.width), cutY = Self.cut(top, bottom, side: source.height)
        let cut = try source.crop(x: cutX.start, y: cutY.start, width: cutX.length, height: cutY.length)
        let (finalX, finalY) = (scaleX * Double(shrinkX), scaleY * Double(shrinkY))
        // Output pixel i's centre lies (i + 0.5) / scale after the area's start, which is at `left - cut start`
        // on the cut; libvips's affine puts input pixel k at position k, so its centre at k + 0.5.
        return try cut.scaledBilinear(
            horizontal: finalX, vertical: finalY,
            offsetX: -(left - Double(cutX.start) - 0.5 + 0.5 / finalX),
            offsetY: -(top - Double(cutY.start) - 0.5 + 0.5 / finalY),
            width: size.width, height: size.height)
    }

    /// Where the area starts on the level when it is exactly `size` whole level pixels there (a plain crop of a
    /// level `levelWidth` x `levelHeight`); nil when reading it at `size` means resampling.
    func crop(to size: PixelSize, levelWidth: Int, levelHeight: Int) -> (left: Int, top: Int)? {
        guard let left = Self.whole(x0), let top = Self.whole(y0),
              abs(Double(size.width) / width - 1) < Self.slack, abs(Double(size.height) / height - 1) < Self.slack,
              left >= 0, top >= 0, left + size.width <= levelWidth, top + size.height <= levelHeight else { return nil }
        return (left, top)
    }

    /// The whole factor that leaves at most a halving (or an enlargement) to interpolate.
    static func wholeShrink(_ scale: Double) -> Int {
        scale >= 1 ? 1 : max(1, Int((1 / scale + slack).rounded(.down)))
    }

    /// `start ..< end` widened by a pixel each side and kept inside `0 ..< side`, at least one pixel.
    static func cut(_ start: Double, _ end: Double, side: Int) -> (start: Int, length: Int) {
        let first = max(0, min(side - 1, Int((start + slack).rounded(.down)) - 1))
        let last = min(side, max(first + 1, Int((end - slack).rounded(.up)) + 1))
        return (first, last - first)
    }

    /// `value` as an integer when it is one, to within `slack`.
    static func whole(_ value: Double) -> Int? {
        let rounded = value.rounded()
        return abs(value - rounded) < slack ? Int(rounded) : nil
    }
}
