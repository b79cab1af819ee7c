import Catalog
import Foundation

/// Keeps the library, the catalog's added dates and the captions in step with the images folder,
/// one change at a time: periodic scans, uploads placing a file and deletions never interleave,
/// so a scan never publishes a half-made change.
public final class LibrarySync: @unchecked Sendable {
    public let scanner: FolderScanner
    let store: any PyramidStore
    let ratings: any RatingStore
    let captions: CaptionsCache
    private let lock = NSLock()
    /// Ids already recorded in the catalog by this process (a cache: the catalog keeps the dates).
    private var recorded: Set<String> = []

    /// Files in the images folder that are an upload still arriving, or a deletion under way.
    static let uploadPrefix = ".upload-"
    static let deletionPrefix = ".deleted."

    public init(scanner: FolderScanner, store: any PyramidStore, ratings: any RatingStore, captions: CaptionsCache) {
        self.scanner = scanner
        self.store = store
        self.ratings = ratings
        self.captions = captions
    }

    var folder: String { scanner.folder }

    /// One pass over the folder and the sidecars; true if the images changed.
    @discardableResult
    public func sync() -> Bool {
        lock.withLock { syncLocked() }
    }

    /// Runs `change` on the folder with no scan in between, then scans, so the change and its
    /// effect on the library are seen together.
    func changingFolder<T>(_ change: () throws -> T) rethrows -> T {
        try lock.withLock {
            let result = try change()
            syncLocked()
            return result
        }
    }

    /// Deletes an image on purpose: its source file, its pyramids and its rating. Readers see the
    /// image, then no image: the source is first renamed out of the scanner's sight (one atomic
    /// step), the scan drops the record, and only then are its files removed. A crash in between
    /// leaves a `.deleted.` file that `recoverAtStart` finishes. The id stays bound to the file's
    /// name in the catalog, so it answers 404 from then on and never reaches another file.
    /// Runs `change` while the image is in the library, with no scan, upload or deletion in between,
    /// so a catalog write for an image (its rating) can never land after the image was deleted;
    /// nil when the image is gone.
    func whilePresent<T>(_ id: String, _ change: (ImageRecord) throws -> T) rethrows -> T? {
        try lock.withLock {
            guard let record = scanner.library.record(id) else { return nil }
            return try change(record)
        }
    }

    func delete(_ id: String) throws {
        try lock.withLock {
            // Looked up under the lock: a DELETE that waited behind another finds the image gone.
            guard let record = scanner.library.record(id) else { throw LibraryError.noSuchImage(id: id) }
            let doomed = "\(folder)/\(Self.deletionPrefix)\(record.id).\(UUID().uuidString.prefix(8))"
            guard rename(record.sourcePath, doomed) == 0 || errno == ENOENT else {
                throw LibraryError.cannotRemove(fileName: record.fileName, reason: String(cString: strerror(errno)))
            }
            syncLocked()
            try finishDeletion(id: record.id, file: doomed)
        }
    }

    /// Clears what a crash left behind: partial uploads go, interrupted deletions are completed.
    /// A partial upload is removed only once untouched for an hour: in an images folder shared by
    /// replicas, a fresh one may be another server's upload still arriving.
    func recoverAtStart() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let cutoff = time(nil) - 3600
        for name in names where name.hasPrefix(Self.uploadPrefix) {
            var info = stat()
            if stat("\(folder)/\(name)", &info) == 0, info.st_mtim.tv_sec < cutoff { unlink("\(folder)/\(name)") }
        }
        for name in names where name.hasPrefix(Self.deletionPrefix) {
            let id = String(name.dropFirst(Self.deletionPrefix.count).split(separator: ".").first ?? "")
            guard !id.isEmpty else { continue }
            do { try finishDeletion(id: id, file: "\(folder)/\(name)") } catch {
                Log.error("cannot finish deleting \(id): \(error)")
            }
        }
    }

    // MARK: - Internals

    private func finishDeletion(id: String, file: String) throws {
        store.removeVersions(of: id, except: nil)
        try ratings.forget(id)
        recorded.remove(id)  // if the file comes back, it is added anew
        unlink(file)
    }

    @discardableResult
    private func syncLocked() -> Bool {
        let changed = scanner.scan()
        let fresh = scanner.library.all.map(\.id).filter { !recorded.contains($0) }
        if !fresh.isEmpty {
            do {
                try ratings.recordSeen(fresh)
                recorded.formUnion(fresh)
            } catch {
                Log.error("cannot record new images in the catalog (retried at the next scan): \(error)")
            }
        }
        captions.refresh()
        return changed
    }
}
