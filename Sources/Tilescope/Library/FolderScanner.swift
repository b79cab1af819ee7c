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

    public init(folder: String, store: any PyramidStore, library: ImageLibrary, builds: BuildQueue,
                identities: FileIdentities,
                limits: SourceLimits = SourceLimits(maxPixels: ServeConfig().maxPixels),
                settling: SettlingFiles = SettlingFiles(interval: 0), failures: (any BuildFailureStore)? = nil) {
        self.folder = folder
        self.identities = identities
        self.store = store
        self.library = library
        self.builds = builds
        self.limits = limits
        self.settling = settling
        self.failures = failures
    }

    /// One pass; returns true if anything changed.
    @discardableResult
    public func scan() -> Bool {
        let names = (try? SourceFolder.listSources(in: folder)) ?? []
        let ids: [String: String]
        do {
            ids = try identities.ids(for: names)
        } catch {
            Log.error("cannot read or record image ids in the catalog (retried at the next scan): \(error)")
            return false
        }
        let previous = Dictionary(library.all.map { ($0.fileName, $0) }, uniquingKeysWith: { a, _ in a })
        var next: [ImageRecord] = []
        var changed = false
        var paths: Set<String> = []
        for name in names {
            let path = (folder as NSString).appendingPathComponent(name)
            paths.insert(path)
            guard let id = ids[name] else { continue }
            let stamp = SourceFingerprint.Stamp.read(path)
            if let old = previous[name], old.id == id, stamp == old.stamp {
                next.append(old)
                continue
            }
            // Still being written: not listed yet, or still its previous version, until it settles.
            guard let stamp, settling.isSettled(path, stamp) else {
                if let old = previous[name], old.id == id { next.append(old) }
                continue
            }
            guard let record = freshRecord(id: id, name: name, path: path) else { continue }
            changed = true
            next.append(record)
        }
        settling.keepOnly(paths)
        changed = changed || next.count != previous.count
        // The records change first, so no reader finds a record whose pyramid is being removed.
        library.replaceAll(next)
        let kept = Set(next.map(\.id))
        for old in previous.values where !kept.contains(old.id) { store.removeVersions(of: old.id, except: nil) }
        for record in next where previous[record.fileName]?.version != record.version {
            if case .queued = record.status { builds.enqueue(record) }
        }
        return changed
    }

    private func freshRecord(id: String, name: String, path: String) -> ImageRecord? {
        guard let (fingerprint, stamp) = SourceFingerprint.compute(path) else { return nil }
        let version = fingerprint.value
        var record = ImageRecord(id: id, fileName: name, sourcePath: path, version: version, stamp: stamp,
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
            if let breach = limits.breach(of: header) {
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
