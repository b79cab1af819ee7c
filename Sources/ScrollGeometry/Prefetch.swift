/// The tiles worth loading before they are needed: what a small pan or the next zoom step will show.
///
/// - `high` at level L: the ring of tiles of level L just outside the cover (one tile deep, within the grid),
///   nearest first, then the cover of the visibleRect at level L + 1 (when L < maxLevel), nearest first.
/// - `low`: the cover of the visibleRect at level min(P + 1, maxLevel), the first level the swap will need.
///
/// Bounded by the viewport like the tiles themselves: the ring adds at most `2 (columns + rows) + 4` tiles and the
/// next level about four times the cover. In `low` the next level is at most 2 x 1024 + 1 pixels a side,
/// so at most 81 tiles of 254.
public enum Prefetch {
    public static func addresses(
        pyramid: Pyramid, choice: LevelChoice, visibleRect: Rect, centre: Point
    ) -> [TileAddress] {
        switch choice.resolution {
        case .low:
            let level = min(choice.previewLevel + 1, pyramid.maxLevel)
            return TileCover(pyramid: pyramid, level: level, imageRect: visibleRect)
                .addresses(nearestTo: centre, in: pyramid)
        case .high(let level):
            let cover = TileCover(pyramid: pyramid, level: level, imageRect: visibleRect)
            var result = ring(around: cover, pyramid: pyramid, centre: centre)
            if level < pyramid.maxLevel {
                result += TileCover(pyramid: pyramid, level: level + 1, imageRect: visibleRect)
                    .addresses(nearestTo: centre, in: pyramid)
            }
            return result
        }
    }

    /// The tiles one step outside `cover` on every side, clipped to the level's grid.
    public static func ring(around cover: TileCover, pyramid: Pyramid, centre: Point) -> [TileAddress] {
        let grid = pyramid.tileGrid(ofLevel: cover.level)
        let columns = max(cover.columns.lowerBound - 1, 0) ..< min(cover.columns.upperBound + 1, grid.columns)
        let rows = max(cover.rows.lowerBound - 1, 0) ..< min(cover.rows.upperBound + 1, grid.rows)
        var ring: [TileAddress] = []
        for row in rows {
            for column in columns {
                let address = TileAddress(level: cover.level, column: column, row: row)
                if !cover.contains(address) { ring.append(address) }
            }
        }
        return TileOrder(pyramid: pyramid, level: cover.level, centre: centre).sorted(ring)
    }
}
