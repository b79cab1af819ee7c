import Foundation

/// Decoded JPEG tiles of the sources served directly, kept so that neighbouring regions (a viewer's next
/// request, a thumbnail beside a zoomed view) decode each stored tile once (`StoredTileRegion`). Bounded in
/// bytes: the tiles used longest ago go first, and a tile larger than the whole bound is never kept.
///
/// Keyed by the open source's identity (`PyramidalSource.identity`, new for every opening, so a new version of
/// a file never meets its old tiles) and the tile's level, column and row. Safe from any thread.
public final class DecodedSourceTiles: @unchecked Sendable {
    /// The cache every direct source reads through; its bound is set at start (`--decoded-tile-cache-mb`).
    public static let shared = DecodedSourceTiles(limit: defaultLimit)
    /// 32 MB: about 170 tiles of 256 x 256, a few views' worth.
    public static let defaultLimit = 32 << 20

    struct Key: Hashable {
        let source: UInt64
        let level: Int
        let column: Int
        let row: Int
    }

    /// A tile's pixels as decoded: 8-bit RGB, rows `width * 3` bytes apart, the part inside its level only.
    final class Tile: Sendable {
        let pixels: [UInt8]
        let width: Int
        let height: Int

        init(pixels: [UInt8], width: Int, height: Int) {
            precondition(pixels.count == width * height * 3)
            self.pixels = pixels
            self.width = width
            self.height = height
        }
    }

    private let lock = NSLock()
    private var entries: [Key: (tile: Tile, used: UInt64)] = [:]
    private var tick: UInt64 = 0
    private var held = 0
    private var bound: Int

    public init(limit: Int) {
        bound = max(0, limit)
    }

    /// The most bytes of pixels held; lowering it lets go of tiles at once.
    public var limit: Int {
        get { lock.withLock { bound } }
        set { lock.withLock { bound = max(0, newValue); evict() } }
    }

    /// Bytes of pixels held now (at most `limit`).
    public var bytes: Int { lock.withLock { held } }

    /// Tiles held now.
    public var count: Int { lock.withLock { entries.count } }

    /// The tile under `key`, from memory or made by `decode` (outside the lock: two threads may decode the same
    /// tile at once, and the second's is the one kept) and kept.
    func tile(_ key: Key, decode: () throws -> Tile) throws -> Tile {
        if let tile = lock.withLock({ () -> Tile? in
            guard let entry = entries[key] else { return nil }
            tick += 1
            entries[key] = (entry.tile, tick)
            return entry.tile
        }) { return tile }
        let tile = try decode()
        lock.withLock {
            guard tile.pixels.count <= bound else { return }
            if let old = entries[key] { held -= old.tile.pixels.count }
            tick += 1
            entries[key] = (tile, tick)
            held += tile.pixels.count
            evict()
        }
        return tile
    }

    /// Lets go of the tiles used longest ago until the bound holds. Under the lock.
    private func evict() {
        while held > bound, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
            entries[oldest.key] = nil
            held -= oldest.value.tile.pixels.count
        }
    }
}
