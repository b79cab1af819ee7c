import Synchronization

/// A bounded in-memory cache of rendered derivatives, least recently used out first.
/// The bound is on body bytes; 0 disables it. Keys carry the source version, so a new
/// version of an image never meets an old entry (old ones simply age out).
final class DerivativeCache: Sendable {
    struct Item: Sendable {
        var body: [UInt8]
        var contentType: String
    }

    private struct Node {
        var item: Item
        var newer: String?
        var older: String?
    }

    private struct State {
        var nodes: [String: Node] = [:]
        var newest: String?
        var oldest: String?
        var bytes = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacityBytes: Int) {
        capacity = max(0, capacityBytes)
    }

    var byteCount: Int { state.withLock { $0.bytes } }
    var count: Int { state.withLock { $0.nodes.count } }

    func get(_ key: String) -> Item? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            Self.unlink(key, &state)
            Self.pushNewest(key, node.item, &state)
            return node.item
        }
    }

    /// Stores `item` unless it alone is larger than an eighth of the cache, which would
    /// push out many small hot tiles for one large, rarely repeated rendering.
    func put(_ key: String, _ item: Item) {
        guard item.body.count <= capacity / 8 else { return }
        state.withLock { state in
            if state.nodes[key] != nil { Self.unlink(key, &state) }
            Self.pushNewest(key, item, &state)
            while state.bytes > capacity, let oldest = state.oldest { Self.unlink(oldest, &state) }
        }
    }

    private static func pushNewest(_ key: String, _ item: Item, _ state: inout State) {
        state.nodes[key] = Node(item: item, newer: nil, older: state.newest)
        if let newest = state.newest { state.nodes[newest]?.newer = key }
        state.newest = key
        if state.oldest == nil { state.oldest = key }
        state.bytes += item.body.count
    }

    private static func unlink(_ key: String, _ state: inout State) {
        guard let node = state.nodes.removeValue(forKey: key) else { return }
        if let newer = node.newer { state.nodes[newer]?.older = node.older } else { state.newest = node.older }
        if let older = node.older { state.nodes[older]?.newer = node.newer } else { state.oldest = node.newer }
        state.bytes -= node.item.body.count
    }
}
