import Catalog
import Foundation

/// The viewer keys this server signs and verifies cookies with, read from the catalog (`ViewerKeys`) at
/// start and again at most once a minute when a cookie is checked, so a key added by a rotation (on any
/// replica, or by an operator) signs on every replica within a minute, without a restart.
final class ViewerKeyring: @unchecked Sendable {  // @unchecked: `keys` and `readAt` are behind `lock`.
    /// Seconds between reads of the catalog's keys.
    static let refreshSeconds = 60.0

    private let refreshSeconds: Double

    private let store: ViewerKeys?
    private let lock = NSLock()
    private var keys: [ViewerKey]
    private var readAt: Double
    private var retiredObserver: (@Sendable () -> Void)?

    /// The catalog's keys (key 1 is created if there is none yet); throws when the catalog cannot be read.
    init(store: ViewerKeys, refreshSeconds: Double = ViewerKeyring.refreshSeconds) throws {
        self.store = store
        self.refreshSeconds = refreshSeconds
        keys = try store.all()
        readAt = Self.now()
        guard !keys.isEmpty else { throw APIError(500, "internal", "the catalog has no viewer key") }
    }

    /// Fixed keys, newest first (tests, and servers built without a catalog).
    init(keys: [ViewerKey]) {
        store = nil
        refreshSeconds = Self.refreshSeconds
        self.keys = keys
        readAt = Self.now()
    }

    /// Calls `observer` after a re-read finds a key gone from the catalog (retired): what was let in under it
    /// and kept (signed URLs' answers in memory) must go.
    func onRetired(_ observer: @escaping @Sendable () -> Void) {
        lock.withLock { retiredObserver = observer }
    }

    /// Newest first. A failed re-read keeps the keys already known (the catalog may be briefly away).
    var current: [ViewerKey] {
        let now = Self.now()
        let (known, stale) = lock.withLock { (keys, now - readAt >= refreshSeconds) }
        guard stale, let store else { return known }
        lock.withLock { readAt = now }  // one re-read a minute, however many requests find it stale
        guard let fresh = try? store.current(), !fresh.isEmpty else { return known }
        let observer = lock.withLock {
            keys = fresh
            return retiredObserver
        }
        if !Set(known.map(\.id)).isSubset(of: fresh.map(\.id)) { observer?() }
        return fresh
    }

    private static func now() -> Double { ProcessInfo.processInfo.systemUptime }
}
