import Catalog
import Foundation
import Imaging

/// The images the server knows, kept in step with the images folder.
///
/// This is a cache of what the folder and the pyramid store say, rebuilt from them at
/// start; nothing here needs sharing between replicas.
public final class ImageLibrary: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [String: ImageRecord] = [:]
    private var order: [String] = []
    private var membership = 0
    /// Ids removed since `takeRemovals` was last called: the catalog forgets them.
    private var removals: [String] = []

    public init() {}

    public func record(_ id: String) -> ImageRecord? {
        lock.withLock { records[id] }
    }

    /// Records in id order.
    public var all: [ImageRecord] {
        lock.withLock { order.compactMap { records[$0] } }
    }

    public var count: Int { lock.withLock { records.count } }

    /// Counts the changes of which images exist under which file names (not of their build
    /// states): a gallery order made at one generation holds until the next.
    public var membershipGeneration: Int { lock.withLock { membership } }

    /// Applies `change` to the record only if it still is that source version,
    /// so a late report from an outdated build cannot overwrite a newer state.
    public func update(_ id: String, version: String, _ change: (inout ImageRecord) -> Void) {
        lock.withLock {
            guard var record = records[id], record.version == version else { return }
            let state = record.status.name
            change(&record)
            if record.status.name != state { record.catalogued = false }
            records[id] = record
        }
    }

    /// Replaces the whole set (after a folder scan).
    ///
    /// The scan says which files and versions exist; how far a version's pyramid has got is the
    /// build queue's to say. A scan's record of a version the library already has may have been
    /// copied before a build reported (issue #18, item 6: built images stuck "building" until a
    /// restart), so for a version already here the library keeps its own status, unless the scan
    /// found that version's pyramid published ("ready" is then a fact, not a report).
    func replaceAll(_ new: [ImageRecord]) {
        lock.withLock {
            var next: [String: ImageRecord] = [:]
            next.reserveCapacity(new.count)
            var moved = new.count != records.count
            for var record in new {
                if let current = records[record.id] {
                    keepBuildState(of: current, in: &record)
                    moved = moved || current.fileName != record.fileName
                } else {
                    moved = true
                }
                next[record.id] = record
            }
            removals += records.keys.filter { next[$0] == nil }
            records = next
            if moved {
                order = records.keys.sorted()
                membership += 1
            }
        }
    }

    /// Changes some records and removes others (after a scan of a few files): the same rules as
    /// `replaceAll` for the records given, the rest untouched.
    func apply(changed: [ImageRecord], removed: [String]) {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        lock.withLock {
            var moved = false
            for id in removed where records.removeValue(forKey: id) != nil {
                removals.append(id)
                let at = position(of: id)
                if at < order.count, order[at] == id { order.remove(at: at) }
                moved = true
            }
            for var record in changed {
                if let current = records[record.id] {
                    keepBuildState(of: current, in: &record)
                    moved = moved || current.fileName != record.fileName
                } else {
                    order.insert(record.id, at: position(of: record.id))
                    moved = true
                }
                records[record.id] = record
            }
            if moved { membership += 1 }
        }
    }

    /// The records the catalog does not remember as they are, and the ids removed since the last call.
    func takeUncatalogued() -> (records: [ImageRecord], removed: [String]) {
        lock.withLock {
            defer { removals = [] }
            return (records.values.filter { !$0.catalogued }, removals)
        }
    }

    /// Notes that the catalog now remembers `saved` (unless the record changed meanwhile).
    func markCatalogued(_ saved: [ImageRecord]) {
        lock.withLock {
            for record in saved {
                guard var current = records[record.id], current.version == record.version,
                      current.status.name == record.status.name else { continue }
                current.catalogued = true
                records[record.id] = current
            }
        }
    }

    /// Gives back removals that could not be saved, for the next attempt.
    func returnRemovals(_ ids: [String]) {
        lock.withLock { removals += ids }
    }

    // MARK: - Internals

    private func keepBuildState(of current: ImageRecord, in record: inout ImageRecord) {
        guard current.version == record.version else { return }
        if record.manifest == nil {
            record.status = current.status
            record.header = current.header ?? record.header
        }
        record.catalogued = current.catalogued && current.status.name == record.status.name
    }

    /// Where `id` is or would go in `order` (binary search; the lock is held).
    private func position(of id: String) -> Int {
        var low = 0
        var high = order.count
        while low < high {
            let middle = low + (high - low) / 2
            if order[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
