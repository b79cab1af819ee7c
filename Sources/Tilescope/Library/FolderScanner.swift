import Catalog
import Foundation
import Imaging

/// Brings the library in line with the images folder: new and changed files get a
/// fresh record (and a build if no pyramid of that version is published), removed
/// files lose their record and their pyramids. Unchanged files (same size and mtime)
/// cost one `stat`. Each file's id is the one the catalog keeps for its name (docs/ids.md).
public struct FolderScanner: Sendable {
    public let folder: String
    let store: any PyramidStore
    let library: ImageLibrary
    let builds: BuildQueue
    /// Each file's id, given once and kept in the catalog (docs/ids.md).
    let identities: FileIdentities

    public init(folder: String, store: any PyramidStore, library: ImageLibrary, builds: BuildQueue,
                identities: FileIdentities) {
        self.folder = folder
        self.identities = identities
        self.store = store
        self.library = library
        self.builds = builds
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
        var changed = names.count != previous.count
        for name in names {
            let path = (folder as NSString).appendingPathComponent(name)
            guard let id = ids[name] else { continue }
            if let old = previous[name], old.id == id, SourceFingerprint.Stamp.read(path) == old.stamp {
                next.append(old)
                continue
            }
            guard let record = freshRecord(id: id, name: name, path: path) else { continue }
            changed = true
            next.append(record)
        }
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
        do {
            record.header = try ImageHeader.read(path)
        } catch {
            record.status = .failed("libvips cannot read \(name): \(error)")
        }
        return record
    }
}
