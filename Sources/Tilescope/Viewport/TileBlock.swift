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
        var blocks: [TileBlock] = []
        func include(_ tiles: [Tile]) {
            var last = -1  // tiles come level by level: look the level up only when it changes
            for tile in tiles {
                let a = tile.address
                if last < 0 || blocks[last].level != a.level {
                    last = blocks.firstIndex { $0.level == a.level } ?? -1
                    if last < 0 {
                        blocks.append(TileBlock(level: a.level, columns: a.column...a.column, rows: a.row...a.row))
                        last = blocks.count - 1
                        continue
                    }
                }
                let block = blocks[last]
                if !block.columns.contains(a.column) {
                    blocks[last].columns = min(block.columns.lowerBound, a.column)...max(block.columns.upperBound, a.column)
                }
                if !block.rows.contains(a.row) {
                    blocks[last].rows = min(block.rows.lowerBound, a.row)...max(block.rows.upperBound, a.row)
                }
            }
        }
        include(drawn)
        if let prefetched { include(prefetched) }
        return blocks
    }
}
