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

    public init() {}

    public func record(_ id: String) -> ImageRecord? {
        lock.withLock { records[id] }
    }

    /// Records in id order.
    public var all: [ImageRecord] {
        lock.withLock { order.compactMap { records[$0] } }
    }

    /// Applies `change` to the record only if it still is that source version,
    /// so a late report from an outdated build cannot overwrite a newer state.
    public func update(_ id: String, version: String, _ change: (inout ImageRecord) -> Void) {
        lock.withLock {
            guard var record = records[id], record.version == version else { return }
            change(&record)
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
            for var record in new {
                if let current = records[record.id], current.version == record.version, record.manifest == nil {
                    record.status = current.status
                    record.partial = current.partial
                    record.header = current.header ?? record.header
                }
                next[record.id] = record
            }
            records = next
            order = records.keys.sorted()
        }
    }
}
