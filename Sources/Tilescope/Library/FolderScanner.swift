import Catalog
import Foundation
import Imaging

/// Brings the library in line with the images folder: new and changed files get a
/// fresh record (and a build if no pyramid of that version is published), removed
/// files lose their record and their pyramids. Unchanged files (same size and mtime)
/// cost one `stat`. Each file's id is the one the catalog keeps for its name (docs/ids.md).
/// A file still being written is left alone until it settles; a file that breaks a
/// `SourceLimits` limit, is empty, or failed to build in this version is listed as failed
/// without a build.
public struct FolderScanner: Sendable {
    public let folder: String
    let store: any PyramidStore
    let library: ImageLibrary
    let builds: BuildQueue
    /// Each file's id, given once and kept in the catalog (docs/ids.md).
    let identities: FileIdentities
    let limits: SourceLimits
    public let settling: SettlingFiles
    let failures: (any BuildFailureStore)?
    /// When the sources are a bucket's objects (`--images s3://`): every pass is one listing of it, and
    /// `folder` is its `s3://` location (`BucketScan`).
    public let bucket: BucketSources?

    public init(folder: String, store: any PyramidStore, library: ImageLibrary, builds: BuildQueue,
                identities: FileIdentities,
                limits: SourceLimits = SourceLimits(maxPixels: ServeConfig().maxPixels),
                settling: SettlingFiles = SettlingFiles(interval: 0), failures: (any BuildFailureStore)? = nil,
                bucket: BucketSources? = nil) {
        self.bucket = bucket
        self.folder = bucket?.location ?? folder
        self.identities = identities
        self.store = store
        self.library = library
        self.builds = builds
        self.limits = limits
        self.settling = settling
        self.failures = failures
    }

    /// One pass over the whole folder; returns true if anything changed.
    @discardableResult
    public func scan() -> Bool {
        scanAll().changed
    }

    /// One pass over the whole folder: whether anything changed, and the names of files still being
    /// written (looked at again by the next pass, even if no watcher reports them again).
    public func scanAll() -> (changed: Bool, settling: Set<String>) {
        if let bucket { return scanBucket(bucket) }
        let names = (try? SourceFolder.listSources(in: folder)) ?? []
        let ids: [String: String]
        do {
            ids = try identities.ids(for: names)
        } catch {
            Log.error("cannot read or record image ids in the catalog (retried at the next scan): \(error)")
            return (false, Set(names))
        }
        var stillSettling: Set<String> = []
        // The records by file name, as positions in one copy of them: a dictionary of whole records
        // would be a transient of ~50 MB at 100,000 images, whose freed pages glibc keeps (docs/gallery-scale.md).
        let records = library.all
        var previous: [String: Int] = [:]
        previous.reserveCapacity(records.count)
        for (at, record) in records.enumerated() where previous[record.fileName] == nil { previous[record.fileName] = at }
        var next: [ImageRecord] = []
        next.reserveCapacity(names.count)
        var changed = false
        for name in names {
            guard let id = ids[name] else { continue }
            switch look(at: name, id: id, previous: previous[name].map { records[$0] }) {
            case .unchanged(let old): next.append(old)
            case .settling(let old):
                stillSettling.insert(name)
                if let old { next.append(old) }
            case .unreadable: break
            case .fresh(let record):
                changed = true
                next.append(record)
            }
        }
        settling.keepOnly(names: Set(names), in: folder)
        changed = changed || next.count != previous.count
        // The records change first, so no reader finds a record whose pyramid is being removed.
        library.replaceAll(next)
        let kept = Set(next.map(\.id))
        for at in previous.values where !kept.contains(records[at].id) {
            store.removeVersions(of: records[at].id, except: nil)
        }
        for record in next where !(previous[record.fileName].map { records[$0].hasSameVersion(as: record) } ?? false) {
            if case .queued = record.status { builds.enqueue(record) }
        }
        return (changed, stillSettling)
    }

    /// Looks at `names` only (the files a `FolderWatcher` saw change), with the same rules as a
    /// full scan for each. Returns whether anything changed and the names still settling, to be
    /// looked at again.
    public func scan(only names: Set<String>) -> (changed: Bool, settling: Set<String>) {
        if bucket != nil { return scanAll() }  // a listing names no changes: it is read whole
        let present = names.filter { SourceFolder.isSource($0, in: folder) }.sorted()
        let ids: [String: String]
        do {
            ids = try identities.ids(for: present)
        } catch {
            Log.error("cannot read or record image ids in the catalog (retried at the next scan): \(error)")
            return (false, names)
        }
        var fresh: [ImageRecord] = []
        var removed: [ImageRecord] = []
        var stillSettling: Set<String> = []
        for name in names where SourceFolder.isSourceName(name) {
            let known = ((try? identities.id(of: name)) ?? nil).flatMap { library.record($0) }.flatMap { $0.fileName == name ? $0 : nil }
            guard let id = ids[name] else {
                if let known { removed.append(known) }
                continue
            }
            switch look(at: name, id: id, previous: known) {
            case .unchanged, .unreadable: break
            case .settling: stillSettling.insert(name)
            case .fresh(let record): fresh.append(record)
            }
        }
        library.apply(changed: fresh, removed: removed.map(\.id))
        for old in removed { store.removeVersions(of: old.id, except: nil) }
        for record in fresh {
            if case .queued = record.status { builds.enqueue(record) }
        }
        return (!fresh.isEmpty || !removed.isEmpty, stillSettling)
    }

    /// What one file in the folder is now, given its id and its record so far.
    private enum Sighting {
        /// Same size and mtime as the record: the record stands.
        case unchanged(ImageRecord)
        /// Still being written: its previous record (if any) stands until it settles.
        case settling(ImageRecord?)
        case fresh(ImageRecord)
        /// Gone or unreadable between the listing and now.
        case unreadable
    }

    private func look(at name: String, id: String, previous: ImageRecord?) -> Sighting {
        let path = (folder as NSString).appendingPathComponent(name)
        let stamp = SourceFingerprint.Stamp.read(path)
        let old = previous.flatMap { $0.id == id ? $0 : nil }
        if let old, stamp == old.stamp { return .unchanged(old) }
        guard let stamp, settling.isSettled(path, stamp) else { return .settling(old) }
        guard let record = freshRecord(id: id, name: name, path: path) else { return .unreadable }
        return .fresh(record)
    }

    private func freshRecord(id: String, name: String, path: String) -> ImageRecord? {
        guard let (fingerprint, stamp) = SourceFingerprint.compute(path) else { return nil }
        let version = fingerprint.value
        // Made from the folder, not `path`: the record keeps no path of its own (docs/gallery-scale.md).
        var record = ImageRecord(id: id, fileName: name, folder: folder, version: version, stamp: stamp,
                                 header: nil, status: .queued)
        if let manifest = store.manifest(id: id, version: version) {
            record.header = ImageHeader(width: manifest.width, height: manifest.height, bands: 3)
            record.status = .ready(manifest)
            return record
        }
        guard stamp.size > 0 else {
            record.status = .failed("\(name): the file is empty (0 bytes); it is looked at again when it changes")
            return record
        }
        do {
            let header = try ImageHeader.read(path)
            record.header = header
            if let breach = limits.breach(of: header, folderFile: path) {
                record.status = .failed("\(name) is not built: \(breach)")
            } else if let failure = try? failures?.failure(fileName: name, version: version) {
                record.status = .failed(failure.reason)  // this very version failed before: not again
            }
        } catch {
            let text = FailureReason.withoutPaths("\(error)", sourcePath: path, fileName: name)
            record.status = .failed("\(name): libvips cannot read its header: \(text)")
        }
        return record
    }
}
