/// Sorts tiles of one level nearest first to a point: what the viewer needs first, it gets first.
/// Columns and rows must be below 2^32 (a level would need to be a trillion pixels wide to reach it).
struct TileOrder {
    let pyramid: Pyramid
    let level: Int
    /// The point in level pixels.
    let centre: Point

    init(pyramid: Pyramid, level: Int, centre imagePoint: Point) {
        let scale = pyramid.scale(ofLevel: level)
        self.pyramid = pyramid
        self.level = level
        self.centre = Point(x: imagePoint.x * scale, y: imagePoint.y * scale)
    }

    func sorted(_ addresses: [TileAddress]) -> [TileAddress] {
        // Keys computed once, not per comparison, and small (16 bytes) so the sort moves little:
        // the row and column packed so that comparing them compares the row first.
        let size = pyramid.size(ofLevel: level)
        var keyed = addresses.map {
            Keyed(distance: distanceSquared($0, levelSize: size), order: $0.row << 32 | $0.column)
        }
        keyed.sort { a, b in a.distance < b.distance || (a.distance == b.distance && a.order < b.order) }
        return keyed.map { TileAddress(level: level, column: $0.order & 0xFFFF_FFFF, row: $0.order >> 32) }
    }

    private struct Keyed {
        var distance: Double
        var order: Int
    }

    /// From `centre` to the centre of the tile's grid cell (without overlap, clipped to the level).
    private func distanceSquared(_ address: TileAddress, levelSize size: PixelSize) -> Double {
        let t = pyramid.tileSize
        let cx = Double(address.column * t + min((address.column + 1) * t, size.width)) / 2
        let cy = Double(address.row * t + min((address.row + 1) * t, size.height)) / 2
        let dx = cx - centre.x, dy = cy - centre.y
        return dx * dx + dy * dy
    }
}
