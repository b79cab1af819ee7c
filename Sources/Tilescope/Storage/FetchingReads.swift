import Foundation
import Synchronization

/// The pyramid files one piece of work reads itself (a region reader's tiles, an encoder's stored JPEG), brought to
/// the local disk first when the store keeps them elsewhere and they are not here yet (`PyramidStore.fetch`).
/// Such readers only take paths, so a store's failure cannot travel through them: it is kept here, and whoever
/// answers for the work answers the store's failure (503 with `Retry-After` when retrying helps) rather than a
/// failed render. Only off the poll threads: a fetch is a round trip.
final class FetchingReads: Sendable {
    let store: any PyramidStore
    private let failure = Mutex<(any Error)?>(nil)

    init(store: any PyramidStore) {
        self.store = store
    }

    /// `path`, fetched first if it is missing and may be in the store. A file the store does not have either is left
    /// missing: the read fails as for any missing file.
    func path(_ path: String) -> String {
        guard store.fetchesOnMiss, access(path, F_OK) != 0 else { return path }
        do {
            _ = try store.fetch(path)
        } catch {
            failure.withLock { $0 = $0 ?? error }
        }
        return path
    }

    /// The first store failure met, if any.
    var storeFailure: (any Error)? { failure.withLock { $0 } }
}
