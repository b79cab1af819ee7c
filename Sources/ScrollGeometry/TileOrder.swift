/// Sorts tiles of one level nearest first to a point: what the viewer needs first, it gets first.
///
/// The order is total: by the squared distance from the point to the centre of each tile's grid cell, then by
/// row, then by column (the browser client sorts its own list by the same rule, and a test holds both equal).
/// It is computed without a comparison sort of the whole list: the distances are spread into as many buckets
/// as there are tiles, linearly between the nearest and the farthest (a bucket's index never decreases as the
/// distance grows), and an insertion pass puts each bucket, a tile or two, in order. On a screenful of tiles
/// the full sort was most of the tile cover's cost; the buckets make it linear.
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

    /// Any tiles of the level, in any order.
    func sorted(_ addresses: [TileAddress]) -> [TileAddress] {
        let size = pyramid.size(ofLevel: level)
        return withUnsafeTemporaryAllocation(of: Keyed.self, capacity: addresses.count) { keyed in
            for (index, address) in addresses.enumerated() {
                let dx = cellCentre(address.column, extent: size.width) - centre.x
                let dy = cellCentre(address.row, extent: size.height) - centre.y
                keyed.initializeElement(at: index, to: Keyed(distance: dx * dx + dy * dy,
                                                             order: address.row << 32 | address.column))
            }
            return Self.withOrdered(UnsafeBufferPointer(keyed)) { ordered in
                ordered.map { TileAddress(level: level, column: $0.order & 0xFFFF_FFFF, row: $0.order >> 32) }
            }
        }
    }

    /// Every tile of `columns` x `rows`: the same order as `sorted` of their addresses, with one distance
    /// term per column and per row instead of per tile.
    func sorted(columns: Range<Int>, rows: Range<Int>) -> [TileAddress] {
        sorted(columns: columns, rows: rows) { TileAddress(level: level, column: $0, row: $1) }
    }

    /// The same, each tile made by `make(column, row)` straight from the order (no list of addresses first).
    /// The columns' terms and the tiles' keys share one temporary block, freed on return.
    func sorted<T>(columns: Range<Int>, rows: Range<Int>, _ make: (_ column: Int, _ row: Int) -> T) -> [T] {
        let width = columns.count, count = width * rows.count
        guard count > 0 else { return [] }
        let size = pyramid.size(ofLevel: level)
        return withUnsafeTemporaryAllocation(of: Keyed.self, capacity: count + width) { block in
            // The columns' squared distances first (as keys, for one block), then the tiles' keys.
            let across = UnsafeMutableBufferPointer(rebasing: block[count...])
            for (index, column) in columns.enumerated() {
                let dx = cellCentre(column, extent: size.width) - centre.x
                across.initializeElement(at: index, to: Keyed(distance: dx * dx, order: column))
            }
            var next = 0
            for row in rows {
                let dy = cellCentre(row, extent: size.height) - centre.y
                let down = dy * dy
                for column in across {
                    block.initializeElement(at: next, to: Keyed(distance: column.distance + down,
                                                                order: row << 32 | column.order))
                    next += 1
                }
            }
            return Self.withOrdered(UnsafeBufferPointer(rebasing: block[..<count])) { ordered in
                [T](unsafeUninitializedCapacity: count) { result, initialized in
                    for (index, item) in ordered.enumerated() {
                        result.initializeElement(at: index, to: make(item.order & 0xFFFF_FFFF, item.order >> 32))
                    }
                    initialized = count
                }
            }
        }
    }

    /// The centre of a cell of the non-overlapping grid along one axis, clipped to the level:
    /// `(i T + min((i + 1) T, extent)) / 2`.
    private func cellCentre(_ index: Int, extent: Int) -> Double {
        let t = pyramid.tileSize
        return Double(index * t + min((index + 1) * t, extent)) / 2
    }

    /// Small (16 bytes) so that moving one moves little: the row and column packed so that comparing them
    /// compares the row first.
    struct Keyed {
        var distance: Double
        var order: Int

        @inline(__always)
        static func precedes(_ a: Keyed, _ b: Keyed) -> Bool {
            a.distance < b.distance || (a.distance == b.distance && a.order < b.order)
        }
    }

    /// `keyed` in the order of `Keyed.precedes`.
    static func ordered(_ keyed: [Keyed]) -> [Keyed] {
        keyed.withUnsafeBufferPointer { keyed in withOrdered(keyed) { Array($0) } }
    }

    /// Calls `body` with `keyed` in the order of `Keyed.precedes` (valid only inside `body`), by a bucket sort:
    /// bucket `floor((d - nearest) * n / span)` (the last one also takes `d = farthest`), filled in input order.
    /// Scaling and truncating never reverse two distances, so a tile in an earlier bucket is strictly nearer:
    /// one insertion pass over the whole list then only moves tiles within their bucket, a tile or two each.
    static func withOrdered<R>(_ keyed: UnsafeBufferPointer<Keyed>, _ body: (UnsafeBufferPointer<Keyed>) -> R) -> R {
        let count = keyed.count
        guard count > 1 else { return body(keyed) }
        var nearest = keyed[0].distance, farthest = nearest
        for item in keyed {
            nearest = min(nearest, item.distance)
            farthest = max(farthest, item.distance)
        }
        let perBucket = Double(count) / (farthest - nearest)
        // All distances equal (or not finite: a centre the request checks make unreachable): the order alone.
        guard perBucket.isFinite, nearest.isFinite else {
            return keyed.sorted(by: Keyed.precedes).withUnsafeBufferPointer(body)
        }

        let lastBucket = count - 1
        return withUnsafeTemporaryAllocation(of: Keyed.self, capacity: count) { result in
            // One scratch block: where each bucket starts (count + 1), then each tile's bucket (count).
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * count + 1) { scratch in
                let starts = scratch.baseAddress!, buckets = starts + count + 1
                starts.initialize(repeating: 0, count: count + 1)
                for (index, item) in keyed.enumerated() {
                    let scaled = (item.distance - nearest) * perBucket
                    let bucket = scaled < Double(lastBucket) ? Int(scaled) : lastBucket
                    buckets[index] = bucket
                    starts[bucket + 1] += 1
                }
                for bucket in 0..<count { starts[bucket + 1] += starts[bucket] }
                for (index, item) in keyed.enumerated() {
                    let bucket = buckets[index]
                    result.initializeElement(at: starts[bucket], to: item)
                    starts[bucket] += 1
                }
            }
            // Many tiles in one bucket (many at one distance) would make the pass quadratic: past a budget
            // of moves, a comparison sort finishes the (still complete) list instead.
            if !insertionSort(result, movesAtMost: 8 * count) {
                var items = result
                items.sort(by: Keyed.precedes)
            }
            return body(UnsafeBufferPointer(result))
        }
    }

    /// Sorts `items` by insertion, or stops (returning false, `items` a permutation of itself) once more
    /// than `budget` tiles would have moved.
    private static func insertionSort(_ items: UnsafeMutableBufferPointer<Keyed>, movesAtMost budget: Int) -> Bool {
        var moves = 0
        for index in 1..<items.count {
            let item = items[index]
            var hole = index
            while hole > 0 && Keyed.precedes(item, items[hole - 1]) {
                items[hole] = items[hole - 1]
                hole -= 1
            }
            items[hole] = item
            moves += index - hole
            if moves > budget { return false }
        }
        return true
    }
}
