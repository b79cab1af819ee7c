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
    func replaceAll(_ new: [ImageRecord]) {
        lock.withLock {
            records = Dictionary(uniqueKeysWithValues: new.map { ($0.id, $0) })
            order = records.keys.sorted()
        }
    }
}
