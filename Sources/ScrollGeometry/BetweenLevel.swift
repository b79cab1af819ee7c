/// A level between two Deep Zoom levels of a pyramid: level `below + 1`'s size times 5/8 (step 1) or 4/5 (step 2).
///
/// Why: a view is drawn from the coarsest level whose scale is at least its own, and with levels an octave apart
/// that level holds 1x to 4x the pixels the screen shows (2.16x on average). With two levels between each octave,
/// its scales step by 1.25x, 1.28x and 1.25x instead of 2x, and the level a view needs holds 1x to 1.64x its pixels:
/// on a slow connection, where a zoom's time is its bytes', that is the fewer tiles and bytes a view waits for
/// (docs/benchmarks.md, "Levels a third of an octave apart"). Deep Zoom and IIIF describe levels an octave apart
/// only: these are Tilescope's own (`GET /images/{id}/between/...`), cut into the same tiles as Deep Zoom's
/// (`tileSize` squares, `overlap` pixels of the neighbours on every inner edge) and made from level `below + 1`.
public struct BetweenLevel: Hashable, Sendable {
    /// The Deep Zoom level under this one; `finer` is the one above, which it is made from.
    public let below: Int
    /// 1 or 2: the first or second level between `below` and `below + 1`.
    public let step: Int

    /// Each step's fraction of the finer level's size, (numerator, denominator).
    public static let fractions: [(numerator: Int, denominator: Int)] = [(5, 8), (4, 5)]
    public static let steps: ClosedRange<Int> = 1...2

    /// Nil unless `below` is a level of `pyramid` with one above it and `step` is 1 or 2.
    public init?(below: Int, step: Int, in pyramid: Pyramid) {
        guard below >= 0, below < pyramid.maxLevel, Self.steps.contains(step) else { return nil }
        self.below = below
        self.step = step
    }

    public var finer: Int { below + 1 }

    public var fraction: (numerator: Int, denominator: Int) { Self.fractions[step - 1] }

    /// Level pixels per image pixel: the finer level's scale times the fraction.
    public func scale(in pyramid: Pyramid) -> Double {
        pyramid.scale(ofLevel: finer) * Double(fraction.numerator) / Double(fraction.denominator)
    }

    /// `ceil(finerSize x numerator / denominator)` on each side, exactly on integers.
    public func size(in pyramid: Pyramid) -> PixelSize {
        let finerSize = pyramid.size(ofLevel: finer)
        let (numerator, denominator) = fraction
        func scaled(_ side: Int) -> Int { (side * numerator + denominator - 1) / denominator }
        return PixelSize(width: scaled(finerSize.width), height: scaled(finerSize.height))
    }

    /// Columns and rows of the level's non-overlapping tile grid.
    public func tileGrid(in pyramid: Pyramid) -> (columns: Int, rows: Int) {
        let size = size(in: pyramid)
        let tile = pyramid.tileSize
        return ((size.width + tile - 1) / tile, (size.height + tile - 1) / tile)
    }

    public func contains(column: Int, row: Int, in pyramid: Pyramid) -> Bool {
        let grid = tileGrid(in: pyramid)
        return column >= 0 && row >= 0 && column < grid.columns && row < grid.rows
    }

    /// Where tile `column`_`row` lies in this level, overlap included, by Deep Zoom's rule (`Pyramid.tileRect`).
    public func tileRect(column: Int, row: Int, in pyramid: Pyramid) -> PixelRect {
        precondition(contains(column: column, row: row, in: pyramid))
        let size = size(in: pyramid)
        let x = pyramid.tileSpan(index: column, extent: size.width)
        let y = pyramid.tileSpan(index: row, extent: size.height)
        return PixelRect(x: x.start, y: y.start, width: x.length, height: y.length)
    }

    /// Every level between two of `pyramid`'s, coarsest first.
    public static func all(in pyramid: Pyramid) -> [BetweenLevel] {
        (0..<pyramid.maxLevel).flatMap { below in steps.compactMap { BetweenLevel(below: below, step: $0, in: pyramid) } }
    }
}
