import ScrollGeometry

/// The columns and rows of one level that an answer's tile lists use: the span from the smallest to the largest,
/// which every list of the geometry fills (a cover, a ring around it, the next level's cover are blocks of their
/// level's grid). Both tile writers print their per-column and per-row text for these.
struct TileBlock: Equatable {
    let level: Int
    var columns: ClosedRange<Int>
    var rows: ClosedRange<Int>

    /// One block per level of `drawn` and then `prefetched`, in the order they first use it.
    static func blocks(drawn: [Tile], prefetched: [Tile]?) -> [TileBlock] {
        blocks(drawn: drawn.lazy.map(\.address), prefetched: prefetched?.lazy.map(\.address))
    }

    /// The same from the tiles' addresses.
    static func blocks<Addresses: Sequence<TileAddress>>(drawn: Addresses, prefetched: Addresses?) -> [TileBlock] {
        var blocks: [TileBlock] = []
        include(drawn, in: &blocks)
        if let prefetched { include(prefetched, in: &blocks) }
        return blocks
    }

    /// The same when the drawn tiles are a whole cover (as a viewport's are): its block is the cover itself,
    /// without a pass over its hundred tiles.
    static func blocks(cover: TileCover?, prefetched: [TileAddress]?) -> [TileBlock] {
        var blocks: [TileBlock] = []
        if let cover, cover.count > 0 {
            blocks.append(TileBlock(level: cover.level, columns: cover.columns.lowerBound...(cover.columns.upperBound - 1),
                                    rows: cover.rows.lowerBound...(cover.rows.upperBound - 1)))
        }
        if let prefetched { include(prefetched, in: &blocks) }
        return blocks
    }

    /// Grows `blocks` to hold `tiles`: a level's block widened, or a new block for a new level.
    private static func include<Addresses: Sequence<TileAddress>>(_ tiles: Addresses, in blocks: inout [TileBlock]) {
        // Tiles come level by level: the current level's bounds grow in locals and are stored when the
        // level changes (a lookup and four array writes per tile were most of the cost).
        var current = -1
        var columns = (low: 0, high: 0), rows = (low: 0, high: 0)
        func store() {
            guard current >= 0 else { return }
            let block = blocks[current]
            blocks[current].columns =
                min(block.columns.lowerBound, columns.low)...max(block.columns.upperBound, columns.high)
            blocks[current].rows = min(block.rows.lowerBound, rows.low)...max(block.rows.upperBound, rows.high)
        }
        for a in tiles {
            if current < 0 || blocks[current].level != a.level {
                store()
                current = blocks.firstIndex { $0.level == a.level } ?? -1
                if current < 0 {
                    blocks.append(TileBlock(level: a.level, columns: a.column...a.column, rows: a.row...a.row))
                    current = blocks.count - 1
                }
                columns = (a.column, a.column)
                rows = (a.row, a.row)
            }
            columns = (min(columns.low, a.column), max(columns.high, a.column))
            rows = (min(rows.low, a.row), max(rows.high, a.row))
        }
        store()
    }
}
