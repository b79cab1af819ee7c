import Synchronization

/// The source versions (`{id}/{version}` keys) known to be lossy, so that their loader is looked up
/// once, not on every request. Bounded: past `capacity` keys the set starts again empty, which only
/// costs each version one more lookup; a key names its version, so a replaced source is looked at anew.
final class KnownLossySources: Sendable {
    let capacity: Int
    private let keys = Mutex(Set<String>())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func contains(_ key: String) -> Bool {
        keys.withLock { $0.contains(key) }
    }

    func insert(_ key: String) {
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys.insert(key)
        }
    }

    var count: Int { keys.withLock { $0.count } }
}
