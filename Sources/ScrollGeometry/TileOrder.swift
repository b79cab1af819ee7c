/// Sorts tiles of one level nearest first to a point: what the viewer needs first, it gets first.
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
        // The level size once, not per tile; keys computed once, not per comparison.
        let size = pyramid.size(ofLevel: level)
        var keyed = addresses.map { Keyed(address: $0, distance: distanceSquared($0, levelSize: size)) }
        keyed.sort { a, b in
            if a.distance != b.distance { return a.distance < b.distance }
            if a.address.row != b.address.row { return a.address.row < b.address.row }
            return a.address.column < b.address.column
        }
        return keyed.map(\.address)
    }

    private struct Keyed {
        var address: TileAddress
        var distance: Double
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
