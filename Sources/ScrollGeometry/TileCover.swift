/// Rule 9: the tiles of one level that a rectangle of the image touches, no more and no fewer.
///
/// The rectangle (image pixels) is scaled into level pixels, `floor` on the low edges and `ceil` on the high
/// edges (with the 1e-9 tolerance), clamped to the level size; every cell of the non-overlapping grid of size T
/// that this integer rectangle overlaps is in the cover.
public struct TileCover: Hashable, Sendable {
    public let level: Int
    /// The rectangle in level pixels after rounding and clamping.
    public let levelRect: PixelRect
    public let columns: Range<Int>
    public let rows: Range<Int>

    public init(pyramid: Pyramid, level: Int, imageRect: Rect) {
        let scale = pyramid.scale(ofLevel: level)
        let size = pyramid.size(ofLevel: level)
        let (x0, x1) = Self.span(low: imageRect.minX * scale, high: imageRect.maxX * scale, extent: size.width)
        let (y0, y1) = Self.span(low: imageRect.minY * scale, high: imageRect.maxY * scale, extent: size.height)
        let tileSize = pyramid.tileSize
        self.level = level
        self.levelRect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        self.columns = x0 / tileSize ..< (x1 + tileSize - 1) / tileSize
        self.rows = y0 / tileSize ..< (y1 + tileSize - 1) / tileSize
    }

    public var count: Int { columns.count * rows.count }

    public func contains(_ address: TileAddress) -> Bool {
        address.level == level && columns.contains(address.column) && rows.contains(address.row)
    }

    /// The cover's tiles, nearest first to `centre` (image pixels): by the distance from `centre` to each
    /// tile's grid cell centre, then by row, then by column, so the order is total and reproducible.
    public func addresses(nearestTo centre: Point, in pyramid: Pyramid) -> [TileAddress] {
        TileOrder(pyramid: pyramid, level: level, centre: centre).sorted(columns: columns, rows: rows)
    }

    /// Integer `[low, high)` within `0...extent`, never empty: a sliver thinner than the tolerance still
    /// needs the pixel it lies in.
    static func span(low: Double, high: Double, extent: Int) -> (Int, Int) {
        var start = clampToInt(Tolerance.floor(low), upTo: extent)
        var end = clampToInt(Tolerance.ceil(high), upTo: extent)
        if end <= start {
            start = min(start, extent - 1)
            end = start + 1
        }
        return (start, end)
    }

    /// `value` in `0...upper` as an `Int`; clamped in floating point first so no value can trap.
    static func clampToInt(_ value: Double, upTo upper: Int) -> Int {
        guard value > 0 else { return 0 }
        return value >= Double(upper) ? upper : Int(value)
    }
}
