import Catalog
import Foundation
import ObjectStore
import Synchronization

/// Keeps the library, the catalog's added dates and the captions in step with the images folder,
/// one change at a time: periodic scans, uploads placing a file and deletions never interleave,
/// so a scan never publishes a half-made change.
public final class LibrarySync: @unchecked Sendable {
    public let scanner: FolderScanner
    let store: any PyramidStore
    let ratings: any RatingStore
    let captions: CaptionsCache
    /// Where the library is remembered between runs; nil: not remembered (every start scans first).
    let catalog: (any ImageCatalogStore)?
    private let lock = NSLock()
    /// Names a watcher reported that were still being written: looked at again at the next pass.
    private var settlingNames: Set<String> = []
    private let counters = NSLock()
    private var fullScans = 0
    /// Restored records still queued for a build (id -> version): built once the first full scan has
    /// confirmed their files, so a file removed while the server was down is never built (and failed).
    private var restoredQueue: [String: String] = [:]
    /// Set by `stopScanning`: a first scan ends after its current batch.
    private let stopping = Atomic<Bool>(false)

    /// Files in the images folder that are an upload still arriving, or a deletion under way.
    static let uploadPrefix = ".upload-"
    static let deletionPrefix = ".deleted."

    public init(scanner: FolderScanner, store: any PyramidStore, ratings: any RatingStore, captions: CaptionsCache,
                catalog: (any ImageCatalogStore)? = nil) {
        self.scanner = scanner
        self.store = store
        self.ratings = ratings
        self.captions = captions
        self.catalog = catalog
    }

    var folder: String { scanner.folder }

    /// Full scans of the folder completed since start.
    public var fullScansCompleted: Int { counters.withLock { fullScans } }

    /// Fills the library with what the catalog remembers of the last run (ready images are served at
    /// once; the others are queued for their builds). Returns how many images it restored; the next
    /// full scan corrects whatever changed in the folder meanwhile.
    @discardableResult
    public func restore() -> Int {
        guard let catalog else { return 0 }
        let images: [CataloguedImage]
        do {
            images = try catalog.all()
        } catch {
            Log.error("cannot read the remembered library from the catalog (the folder is scanned instead): \(error)")
            return 0
        }
        let records = images.map { image in
            var record = ImageRecord(image, folder: folder)
            // A build that failed after the catalog last saw this version: failed, not built again.
            if record.isQueued, let failure = try? scanner.failures?.failure(fileName: image.fileName, version: image.version) {
                record.status = .failed(failure.reason)
                record.catalogued = false
            }
            return record
        }
        // Before any scan, upload or deletion can run (the server is not listening yet): no lock.
        scanner.library.replaceAll(records)
        _ = scanner.library.takeUncatalogued()  // nothing was removed: the library was empty
        for record in records {
            if record.isQueued { restoredQueue[record.id] = record.version }
        }
        FreedMemory.returnToSystem()
        return records.count
    }

    /// The first scan of a folder the catalog remembers nothing of, made while the server already
    /// answers: the files are looked at a batch at a time, each batch listed and saved to the catalog
    /// as it is done, so `GET /api/images` shows a growing list; then one full scan, as after a
    /// restart, takes in what changed meanwhile (a file removed, one still settling). Uploads and
    /// deletions run between batches. `progress` is told the number of images listed after each
    /// batch. False if `stopScanning` ended it first.
    ///
    /// The ids come out as one scan of the whole folder gives them (docs/ids.md): `FirstScanOrder`
    /// says which files may be bound before the others are known.
    @discardableResult
    public func firstScan(batch: Int = 100, progress: (Int) -> Void = { _ in }) -> Bool {
        let started = ProcessInfo.processInfo.systemUptime
        let names = (try? SourceFolder.listSources(in: folder)) ?? []
        let order = FirstScanOrder(names, catalogIsEmpty: !((try? scanner.identities.hasBindings()) ?? true))
        Log.info(String(format: "first scan: %d files found in %.2f s", names.count, ProcessInfo.processInfo.systemUptime - started))
        for (index, part) in order.parts.enumerated() {
            if index == order.wholeBindingBefore {
                // The ids of the rest depend on every name: bound together, as one scan binds them.
                let bound: Bool = lock.withLock {
                    do {
                        _ = try scanner.identities.ids(for: names)
                        return true
                    } catch {
                        Log.error("cannot read or record image ids in the catalog (the folder is scanned whole instead): \(error)")
                        return false
                    }
                }
                guard bound else { break }
            }
            var start = 0
            while start < part.count {
                guard !stopping.load(ordering: .relaxed) else { return false }
                // Batches grow with the library: each adds a merge of the whole library's records.
                let size = max(batch, scanner.library.count / 4)
                let chunk = Set(part[start..<min(part.count, start + size)])
                start += size
                lock.withLock {
                    let (_, settling) = scanner.scan(only: chunk)
                    settlingNames.formUnion(settling)
                    afterScan()
                }
                progress(scanner.library.count)
            }
        }
        guard !stopping.load(ordering: .relaxed) else { return false }
        sync()
        return true
    }

    /// Ends a first scan in progress after its current batch (the server is stopping; the next start
    /// restores what was saved and scans the rest in the background).
    public func stopScanning() {
        stopping.store(true, ordering: .relaxed)
    }

    /// One pass over the folder and the sidecars; true if the images changed.
    @discardableResult
    public func sync() -> Bool {
        lock.withLock { syncLocked() }
    }

    /// The periodic pass: looks only at what `changes` reports (nothing, a few names, or everything),
    /// plus names still settling from before. True if the images changed.
    @discardableResult
    public func sync(_ changes: FolderChange) -> Bool {
        lock.withLock {
            switch changes {
            case .everything:
                return syncLocked()
            case .nothing where settlingNames.isEmpty:
                afterScan()  // builds that finished since are remembered
                return false
            case .nothing, .names:
                var names = settlingNames
                if case .names(let reported) = changes { names.formUnion(reported) }
                let (changed, settling) = scanner.scan(only: names)
                settlingNames = settling
                afterScan()
                return changed
            }
        }
    }

    /// What the folder watch saw arrive (`FolderWatch`): files proven whole (closed, renamed or linked
    /// in, and open for writing nowhere) are vouched for and looked at now, with removals; writes still
    /// in progress are left to the periodic pass, which looks at them until they settle. True if the
    /// images changed.
    @discardableResult
    public func sync(_ events: FolderEvents) -> Bool {
        if case .everything = events.change { return sync(.everything) }
        #if canImport(Glibc)
        // Outside the lock: a lease check per name, and a scan waits for none of them.
        for name in events.closed where SourceFolder.isSourceName(name) {
            let path = (folder as NSString).appendingPathComponent(name)
            if let stamp = WriterCheck.stampIfUnwritten(path) { scanner.settling.vouch(for: path, as: stamp) }
        }
        #endif
        guard events.wantsLookNow else {
            if case .names(let names) = events.change { lock.withLock { settlingNames.formUnion(names) } }
            return false
        }
        return sync(events.change)
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
            if let bucket = scanner.bucket { return try delete(record, from: bucket) }
            let doomed = "\(folder)/\(Self.deletionPrefix)\(record.id).\(UUID().uuidString.prefix(8))"
            guard rename(record.sourcePath, doomed) == 0 || errno == ENOENT else {
                throw LibraryError.cannotRemove(fileName: record.fileName, reason: String(cString: strerror(errno)))
            }
            syncLocked()
            try finishDeletion(id: record.id, file: doomed)
        }
    }

    /// Deletes a bucket source: the object goes first (a crash after it leaves pyramids that the next listing,
    /// which no longer has the object, removes), then the record, its pyramids and its rating.
    private func delete(_ record: ImageRecord, from bucket: BucketSources) throws {
        do {
            try bucket.client.deleteObject(bucket.key(of: record.fileName))
        } catch let error as S3Error {
            throw APIError(imagesBucket: error, doing: "the deletion of \(record.fileName)")
        }
        scanner.library.apply(changed: [], removed: [record.id])  // gone now, even if the next listing fails
        bucket.listWholeNext()  // only a whole listing sees a removal
        syncLocked()
        try finishDeletion(id: record.id, file: nil)
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

    private func finishDeletion(id: String, file: String?) throws {
        store.removeVersions(of: id, except: nil)
        try ratings.forget(id)
        if let file { unlink(file) }
    }

    @discardableResult
    private func syncLocked() -> Bool {
        let (changed, settling) = scanner.scanAll()
        settlingNames = settling
        for (id, version) in restoredQueue {
            guard let record = scanner.library.record(id), record.version == version, case .queued = record.status else { continue }
            scanner.builds.enqueue(record)
        }
        restoredQueue = [:]
        afterScan()
        counters.withLock { fullScans += 1 }
        // A bucket is listed whole at every pass: trimming the heap after each unchanged one would be a cost per pass.
        if changed || scanner.bucket == nil { FreedMemory.returnToSystem() }
        return changed
    }

    /// Records new images' added dates, saves what the catalog does not remember yet, rereads captions.
    private func afterScan() {
        let (pending, removed) = scanner.library.takeUncatalogued()
        do {
            if !pending.isEmpty { try ratings.recordSeen(pending.map(\.id)) }
            if let catalog {
                var keep: [CataloguedImage] = []
                var forget = removed
                for record in pending {
                    if let image = CataloguedImage(record) { keep.append(image) } else { forget.append(record.id) }
                }
                try catalog.save(keep, removing: forget)
            }
            scanner.library.markCatalogued(pending)
        } catch {
            scanner.library.returnRemovals(removed)
            Log.error("cannot record new images in the catalog (retried at the next scan): \(error)")
        }
        captions.refresh()
    }
}
