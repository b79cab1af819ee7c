import Foundation
import Synchronization

/// The uploads of a progressive build's parts, started as each part is published on the building replica (the
/// base, then each finer level) so that the store receives the version while it is still being built, not all
/// after its last level (issue 40's goal 2: a published build within 1.3x of a local one). Nothing of this is
/// visible to readers: the version's `pyramid.json` is still written last, once `finish` has seen every part
/// uploaded.
final class VersionUploads: Sendable {
    private final class Pending: @unchecked Sendable {  // `uploaded` and `failure` are guarded by `lock`
        let group = DispatchGroup()
        let lock = NSLock()
        var uploaded: Set<String> = []
        var failure: (any Error)?
    }
    private let pending = Mutex<[String: Pending]>([:])

    /// Runs `upload` on a thread of its own for the version `key`; it returns the paths it put, inside the version.
    func start(_ key: String, _ upload: @escaping @Sendable () throws -> Set<String>) {
        let entry = pending.withLock { pending in
            if let entry = pending[key] { return entry }
            let entry = Pending()
            pending[key] = entry
            return entry
        }
        entry.group.enter()
        DispatchQueue.global().async {
            do {
                let uploaded = try upload()
                entry.lock.withLock { entry.uploaded.formUnion(uploaded) }
            } catch {
                entry.lock.withLock { entry.failure = entry.failure ?? error }
            }
            entry.group.leave()
        }
    }

    /// Waits for the version's uploads started so far and forgets them: the paths they put, or the first failure.
    func finish(_ key: String) throws -> Set<String> {
        guard let entry = pending.withLock({ $0.removeValue(forKey: key) }) else { return [] }
        entry.group.wait()
        return try entry.lock.withLock {
            if let failure = entry.failure { throw failure }
            return entry.uploaded
        }
    }
}
