import Synchronization

/// Hits and misses of one cache, counted lock-free by whatever feature owns the cache.
/// Get one from `Metrics.cache(_:)` once, keep it, and call `hit()` or `miss()` per lookup.
public final class CacheCounter: Sendable {
    public let name: String
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)

    init(name: String) { self.name = name }

    public func hit() { hits.add(1, ordering: .relaxed) }
    public func miss() { misses.add(1, ordering: .relaxed) }

    public var hitCount: Int { hits.load(ordering: .relaxed) }
    public var missCount: Int { misses.load(ordering: .relaxed) }
}
