import Foundation
import Synchronization

/// How the versions this replica reads lie in the store, by `{id}/{version}`: one object per file (versions published
/// before packs, and those with no tile) or packed (`PackIndex`). Each version's layout is learnt once (its index
/// loaded by one caller while the others asking at once wait: `FetchCoalescer`) and kept, for at most `kept`
/// versions in memory (the least recently used go; an index of 5,733 entries is about 0.7 MB here); the index file
/// itself stays in the version's local copy, so a version forgotten here is read again from the disk, not the store.
final class PackIndexes: Sendable {
    enum Layout: Sendable {
        case objects
        case packed(PackIndex)
    }

    static let kept = 16
    private let coalescer = FetchCoalescer<Layout>()
    private struct State {
        var layouts: [String: (layout: Layout, used: UInt64)] = [:]
        var tick: UInt64 = 0
    }
    private let state = Mutex(State())

    /// The layout of `version` (`{id}/{version}`), learnt by `load` if it is not known here.
    func layout(of version: String, load: () throws -> Layout) throws -> Layout {
        if let known = state.withLock({ state -> Layout? in
            guard let entry = state.layouts[version] else { return nil }
            state.tick += 1
            state.layouts[version]?.used = state.tick
            return entry.layout
        }) {
            return known
        }
        return try coalescer.run(version) {
            let layout = try load()
            state.withLock { state in
                state.tick += 1
                state.layouts[version] = (layout, state.tick)
                if state.layouts.count > Self.kept, let oldest = state.layouts.min(by: { $0.value.used < $1.value.used }) {
                    state.layouts[oldest.key] = nil
                }
            }
            return layout
        }
    }

    /// Forgets the versions of `id` but `kept` (removed, withdrawn).
    func forget(id: String, except kept: String? = nil) {
        state.withLock { state in
            for key in state.layouts.keys where key.hasPrefix(id + "/") && key != kept.map({ id + "/" + $0 }) {
                state.layouts[key] = nil
            }
        }
    }

    /// How many versions are known here now.
    var count: Int { state.withLock { $0.layouts.count } }
}
