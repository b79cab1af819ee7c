import Foundation
import Synchronization

/// The files fetched from an object store onto the local disk, bounded by bytes: when they pass the limit, the
/// least recently answered go until they fill at most nine tenths of it (a batch, so that one sort pays for many
/// fetches). Only what can be fetched again is counted here: the files of published versions. A build's own
/// local copy of a version in progress, and the manifests, are never evicted.
///
/// Why evicting is safe: a published version never changes, so a file removed is fetched again, the same bytes,
/// the next time it is asked for; a reader holding it open keeps reading it (Linux unlinks, it does not truncate).
final class StoreDiskCache: Sendable {
    let limitBytes: Int
    private struct Entry { var size: Int; var used: UInt64 }
    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        var evictions = 0
    }
    private let state = Mutex(State())

    init(limitBytes: Int) {
        self.limitBytes = max(limitBytes, 1 << 20)
    }

    /// Bytes held now, and files evicted since start (`/metrics`).
    var bytes: Int { state.withLock { $0.bytes } }
    var evictions: Int { state.withLock { $0.evictions } }

    /// Counts a file just placed at `path` (or found there at start), and evicts what goes over the limit.
    func add(_ path: String, size: Int) {
        let doomed: [String] = state.withLock { state in
            state.tick += 1
            if let old = state.entries[path] { state.bytes -= old.size }
            state.entries[path] = Entry(size: size, used: state.tick)
            state.bytes += size
            guard state.bytes > limitBytes else { return [] }
            // Oldest first, never the file just added (its reader is about to open it).
            var victims: [String] = []
            for (victim, entry) in state.entries.sorted(by: { $0.value.used < $1.value.used }) {
                guard state.bytes > limitBytes / 10 * 9 else { break }
                if victim == path { continue }
                state.entries[victim] = nil
                state.bytes -= entry.size
                victims.append(victim)
            }
            state.evictions += victims.count
            return victims
        }
        for victim in doomed { unlink(victim) }
    }

    /// Marks `path` as just answered (a file the cache does not count is left alone).
    func touch(_ path: String) {
        state.withLock { state in
            guard state.entries[path] != nil else { return }
            state.tick += 1
            state.entries[path]?.used = state.tick
        }
    }

    /// Forgets every file under `folder` but those under `kept` (removed by other means: versions withdrawn).
    func forget(under folder: String, except kept: String? = nil) {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let keptPrefix = kept.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        state.withLock { state in
            for (path, entry) in state.entries where path.hasPrefix(prefix) && !(keptPrefix.map { path.hasPrefix($0) } ?? false) {
                state.entries[path] = nil
                state.bytes -= entry.size
            }
        }
    }

    /// Counts the files of a version folder already on disk (at start, or once a version is published), only
    /// those under the top-level `entries` (the pyramid's own; what is derived from it stays as today), oldest
    /// modification first so that a restart keeps roughly the order of use. An empty file is removed, not
    /// counted: fetched files are not flushed one by one (an fsync per cold tile), and what a power cut leaves
    /// of one is an empty file under its name, which must be fetched again rather than served.
    func adopt(versionFolder: String, entries: Set<String>) {
        guard let walker = FileManager.default.enumerator(atPath: versionFolder) else { return }
        var found: [(path: String, size: Int, modified: Int)] = []
        while let relative = walker.nextObject() as? String {
            guard entries.contains(relative.split(separator: "/").first.map(String.init) ?? relative) else { continue }
            let path = versionFolder + "/" + relative
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if info.st_size == 0 {
                unlink(path)
                continue
            }
            found.append((path, Int(info.st_size), info.st_mtim.tv_sec))
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) { add(file.path, size: file.size) }
    }
}
