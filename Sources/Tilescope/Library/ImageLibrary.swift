import Catalog
import Foundation
import Imaging

/// The images the server knows, kept in step with the images folder.
///
/// This is a cache of what the folder and the pyramid store say, rebuilt from them at
/// start; nothing here needs sharing between replicas.
///
/// Records live in one array in id order, found by a binary search: a dictionary of whole records
/// would round its table up to a power of two of ~200-byte slots, about 600 bytes per image in a
/// 100,000-image gallery, and even an index from id to position cost ~63 bytes per image, where the
/// sorted array costs one record per image and nothing more (docs/gallery-scale.md).
public final class ImageLibrary: @unchecked Sendable {
    private let lock = NSLock()
    /// Sorted by id (`<`), no id twice.
    private var records: [ImageRecord] = []
    private var membership = 0
    /// Ids removed since `takeUncatalogued` was last called: the catalog forgets them.
    private var removals: [String] = []

    /// Told, after the change, the ids whose source version or build state changed or that were removed.
    private var changeObserver: (@Sendable ([String]) -> Void)?

    public init() {}

    /// Sets the one observer of changes (answers kept elsewhere for an image must go when it changes).
    public func onChange(_ observer: @escaping @Sendable ([String]) -> Void) {
        lock.withLock { changeObserver = observer }
    }

    /// Tells the observer about `ids`, outside the lock (the change is visible by then).
    private func notify(_ ids: [String], _ observer: (@Sendable ([String]) -> Void)?) {
        guard !ids.isEmpty, let observer else { return }
        observer(ids)
    }

    private static func differs(_ old: ImageRecord, _ new: ImageRecord) -> Bool {
        !old.hasSameVersion(as: new) || old.statusName != new.statusName
    }

    public func record(_ id: String) -> ImageRecord? {
        lock.withLock { position(of: id).map { records[$0] } }
    }

    /// Records in id order.
    public var all: [ImageRecord] {
        lock.withLock { records }
    }

    public var count: Int { lock.withLock { records.count } }

    /// `transform` of every record, in id order, without a copy of the records.
    func map<T>(_ transform: (ImageRecord) throws -> T) rethrows -> [T] {
        try lock.withLock { try records.map(transform) }
    }

    /// Counts the changes of which images exist under which file names (not of their build
    /// states): a gallery order made at one generation holds until the next.
    public var membershipGeneration: Int { lock.withLock { membership } }

    /// Applies `change` to the record only if it still is that source version,
    /// so a late report from an outdated build cannot overwrite a newer state.
    public func update(_ id: String, version: String, _ change: (inout ImageRecord) -> Void) {
        let (changed, observer) = lock.withLock { () -> ([String], (@Sendable ([String]) -> Void)?) in
            guard let at = position(of: id), records[at].isVersion(version) else { return ([], nil) }
            let old = records[at]
            change(&records[at])
            guard Self.differs(old, records[at]) else { return ([], nil) }
            if records[at].statusName != old.statusName { records[at].catalogued = false }
            return ([id], changeObserver)
        }
        notify(changed, observer)
    }

    /// Replaces the whole set (after a folder scan).
    ///
    /// The scan says which files and versions exist; how far a version's pyramid has got is the
    /// build queue's to say. A scan's record of a version the library already has may have been
    /// copied before a build reported (issue #18, item 6: built images stuck "building" until a
    /// restart), so for a version already here the library keeps its own status, unless the scan
    /// found that version's pyramid published ("ready" is then a fact, not a report).
    func replaceAll(_ new: [ImageRecord]) {
        let (changed, observer) = lock.withLock { () -> ([String], (@Sendable ([String]) -> Void)?) in
            var changed: [String] = []
            var next: [ImageRecord] = []
            next.reserveCapacity(new.count)
            var moved = new.count != records.count
            for var record in new {
                if let at = position(of: record.id) {
                    keepBuildState(of: records[at], in: &record)
                    moved = moved || records[at].fileName != record.fileName
                    if Self.differs(records[at], record) { changed.append(record.id) }
                } else {
                    moved = true
                }
                next.append(record)
            }
            next.sort { $0.id < $1.id }
            // Sorted both: one walk finds the ids that are gone.
            var kept = next.startIndex
            for record in records {
                while kept < next.endIndex, next[kept].id < record.id { kept += 1 }
                if kept == next.endIndex || next[kept].id != record.id {
                    removals.append(record.id)
                    changed.append(record.id)
                }
            }
            records = next
            if moved { membership += 1 }
            return (changed, changeObserver)
        }
        notify(changed, observer)
    }

    /// Changes some records and removes others (after a scan of a few files): the same rules as
    /// `replaceAll` for the records given, the rest untouched.
    func apply(changed: [ImageRecord], removed: [String]) {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        let (differing, observer) = lock.withLock { () -> ([String], (@Sendable ([String]) -> Void)?) in
            var differing: [String] = []
            var moved = false
            for id in removed {
                guard let at = position(of: id) else { continue }
                records.remove(at: at)
                removals.append(id)
                differing.append(id)
                moved = true
            }
            var added: [ImageRecord] = []
            for var record in changed {
                if let at = position(of: record.id) {
                    keepBuildState(of: records[at], in: &record)
                    moved = moved || records[at].fileName != record.fileName
                    if Self.differs(records[at], record) { differing.append(record.id) }
                    records[at] = record
                } else {
                    added.append(record)
                }
            }
            if !added.isEmpty {
                insert(added)
                moved = true
            }
            if moved { membership += 1 }
            return (differing, changeObserver)
        }
        notify(differing, observer)
    }

    /// The records the catalog does not remember as they are, and the ids removed since the last call.
    func takeUncatalogued() -> (records: [ImageRecord], removed: [String]) {
        lock.withLock {
            defer { removals = [] }
            return (records.filter { !$0.catalogued }, removals)
        }
    }

    /// Notes that the catalog now remembers `saved` (unless the record changed meanwhile).
    func markCatalogued(_ saved: [ImageRecord]) {
        lock.withLock {
            for record in saved {
                guard let at = position(of: record.id), records[at].hasSameVersion(as: record),
                      records[at].statusName == record.statusName else { continue }
                records[at].catalogued = true
            }
        }
    }

    /// Gives back removals that could not be saved, for the next attempt.
    func returnRemovals(_ ids: [String]) {
        lock.withLock { removals += ids }
    }

    // MARK: - Internals

    private func keepBuildState(of current: ImageRecord, in record: inout ImageRecord) {
        guard current.hasSameVersion(as: record) else { return }
        if record.manifest == nil {
            record.status = current.status
            record.partial = current.partial
            record.header = current.header ?? record.header
        }
        record.catalogued = current.catalogued && current.statusName == record.statusName
    }

    /// Adds records of ids not in the library, in one merge: a first scan adds its files a batch at a
    /// time to a library of up to 100,000, where an insertion each would move the array every time.
    private func insert(_ added: [ImageRecord]) {
        guard added.count > 1 else {
            if let record = added.first { records.insert(record, at: insertionPoint(of: record.id)) }
            return
        }
        let sorted = added.sorted { $0.id < $1.id }
        var merged: [ImageRecord] = []
        merged.reserveCapacity(records.count + sorted.count)
        var next = sorted.startIndex
        for record in records {
            while next < sorted.endIndex, sorted[next].id < record.id {
                merged.append(sorted[next])
                next += 1
            }
            merged.append(record)
        }
        merged.append(contentsOf: sorted[next...])
        records = merged
    }

    /// The position of the record of `id` in `records` (the lock is held).
    private func position(of id: String) -> Int? {
        let at = insertionPoint(of: id)
        return at < records.count && records[at].id == id ? at : nil
    }

    /// Where a record of `id` goes in `records` (binary search; the lock is held).
    private func insertionPoint(of id: String) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = low + (high - low) / 2
            if records[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
