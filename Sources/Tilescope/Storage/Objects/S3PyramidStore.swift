import Foundation
import Imaging
import ObjectStore
import Synchronization

/// Pyramids in an S3-compatible bucket (`--store s3://bucket/prefix`), served from local copies:
///
///     {prefix}/pyramids/{id}/{version}/image.dzi, image_files/..., preview.jpeg, ..., pyramid.json
///
/// Builds stage on the local disk as with `FilePyramidStore` (which this store keeps under
/// `{data}/store-cache/`, with its staging folders and build locks). A complete version is uploaded file by
/// file, then published by writing its `pyramid.json` last, with `If-None-Match: *`: of two builders of one
/// version one wins, and a reader trusts a version only once that object exists, so objects uploaded by a
/// builder that died are never served (a rebuild writes the same keys again, and strays are deleted).
///
/// A progressive build publishes its base and finer levels on this replica only, in the local copy, as
/// `FilePyramidStore` does; the store gets the version whole when its last level is done. Other replicas
/// see it then, never a part: no level's manifest update has to be made safe on a store with no rename.
///
/// Readers: the paths are the local copy's; a file missing there is fetched once into it (`fetch`, one GET
/// per object however many ask at once: `FetchCoalescer`) and counted in a disk cache bounded by bytes
/// (`StoreDiskCache`), after which it is answered exactly as a local file (same ETags, caches, headers).
public final class S3PyramidStore: PyramidStore, Sendable {
    /// The local copy: staging, build locks, published versions fetched or built here.
    let local: FilePyramidStore
    let location: StoreLocation
    let client: S3Client
    let cache: StoreDiskCache
    private let coalescer = FetchCoalescer()
    /// A progressive build's parts, uploaded while the build goes on.
    private let uploads = VersionUploads()
    /// The full pass's tiles, uploaded as libvips writes them, by `{id}/{version}`.
    private let passes = Mutex<[String: PassUploads]>([:])
    /// The version each staging folder is for (`makeStagingFolder`), so `building` knows what it uploads.
    private let stagedVersions = Mutex<[String: (id: String, version: String)]>([:])
    let reachability: StoreReachability
    private let counts = Mutex<(fetches: Int, failures: Int)>((0, 0))

    /// The local copy's folder in the data folder.
    static let localFolderName = "store-cache"
    /// The entries of a version folder that are the pyramid itself (uploaded, fetched, evicted); the rest of the
    /// folder (formats, IIIF tiles, previews made on request) is derived here and stays here.
    static let pyramidEntries: Set<String> = [PyramidBuilder.descriptorName, PyramidBuilder.previewName,
                                              PyramidBuilder.alphaPreviewName, PyramidBuilder.tilesFolderName,
                                              AssociatedImages.folderName]
    /// PUTs in flight at once while a version uploads: enough to overlap round trips, few enough to leave the
    /// store (and this machine's cores) to the other replicas.
    static let uploadThreads = 4
    /// Listing pages read at most for one version or image (1,000 keys a page): a bound, not a limit met.
    static let maxListingPages = 10_000

    init(location: StoreLocation, dataFolder: String, stagingName: String, cacheBytes: Int) throws {
        local = try FilePyramidStore(dataFolder: dataFolder + "/" + Self.localFolderName, stagingName: stagingName)
        self.location = location
        do { client = try S3Client(settings: location.settings) } catch { throw UsageError("store: \(error)") }
        cache = StoreDiskCache(limitBytes: cacheBytes)
        let client = self.client, probeKey = location.key("pyramids/")
        reachability = StoreReachability { _ = try client.listObjects(prefix: probeKey, maxKeys: 1) }
        adoptLocalVersions()
    }

    /// Objects fetched since start, and fetches that failed (`/metrics`).
    var fetchCounts: (fetches: Int, failures: Int) { counts.withLock { $0 } }

    // MARK: Keys

    private func versionKey(_ id: String, _ version: String) -> String { location.key("pyramids/\(id)/\(version)/") }
    private func manifestKey(_ id: String, _ version: String) -> String { versionKey(id, version) + FilePyramidStore.manifestName }

    /// `{id}/{version}/...` of a path in the local copy, or nil for a path outside it.
    private func relative(_ path: String) -> String? {
        let root = local.pyramidsFolder + "/"
        guard path.hasPrefix(root) else { return nil }
        let inside = String(path.dropFirst(root.count))
        guard !inside.isEmpty, !inside.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        return inside
    }

    /// Runs one call, recording whether the store answered.
    private func call<T>(_ work: () throws -> T) throws -> T {
        do {
            let value = try work()
            reachability.record(nil)
            return value
        } catch {
            reachability.record(error)
            throw error
        }
    }

    // MARK: Manifests

    public func manifest(id: String, version: String) -> PyramidManifest? {
        // A complete manifest in the local copy was put there only once the store had it: a published version
        // never changes, so it is not asked again.
        if let known = local.manifest(id: id, version: version) { return known }
        guard let (manifest, bytes) = storedManifest(id: id, version: version) else { return nil }
        // A partial local copy is a build of ours that another builder's publication overtook: it goes first.
        if local.publishedManifest(id: id, version: version) != nil { local.withdraw(id: id, version: version) }
        let folder = local.folder(id: id, version: version)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try AtomicFile.publish(bytes, at: folder + "/" + FilePyramidStore.manifestName, durability: .fileAndFolder)
        } catch {
            Log.info("cannot keep the manifest of \(id) in \(Self.localFolderName): \(error)")
        }
        return manifest
    }

    /// The store's complete manifest of a version and its bytes, or nil: none, not complete, or the store not
    /// answering (then logged: the caller takes the version for unpublished, and its build's upload will fail).
    func storedManifest(id: String, version: String) -> (PyramidManifest, [UInt8])? {
        do {
            let object = try call { try client.getObject(manifestKey(id, version)) }
            guard let manifest = try? JSONDecoder().decode(PyramidManifest.self, from: Data(object.body)),
                  manifest.version == version, manifest.isComplete else { return nil }
            return (manifest, object.body)
        } catch let error as S3Error where error.status == 404 {
            return nil
        } catch {
            Log.info("cannot read the manifest of \(id) from the store: \(error)")
            return nil
        }
    }

    // MARK: Building and publishing

    public func holdBuild(id: String, version: String, wait: Bool) throws -> (any BuildHold)? {
        try local.holdBuild(id: id, version: version, wait: wait)
    }

    public func makeStagingFolder(id: String, version: String) throws -> String {
        let folder = try local.makeStagingFolder(id: id, version: version)
        stagedVersions.withLock { $0[folder] = (id, version) }
        return folder
    }

    /// The build runs with its full pass's tiles streamed to the store (`PassUploads`): the last level's
    /// publication then finds most of the version already there. Stopped (PUTs in flight waited for) before this
    /// returns, so a failed build's withdrawal deletes after the last of them.
    public func building<T>(into stagingFolder: String, _ build: () throws -> T) rethrows -> T {
        guard let (id, version) = stagedVersions.withLock({ $0[stagingFolder] }) else {
            return try local.building(into: stagingFolder, build)
        }
        let key = id + "/" + version
        let prefix = versionKey(id, version) + PyramidBuilder.tilesFolderName + "/"
        let pass = PassUploads(passTiles: PyramidBuilder.passTilesFolder(inWork: stagingFolder),
                               publishedTiles: local.folder(id: id, version: version) + "/" + PyramidBuilder.tilesFolderName,
                               threads: Self.uploadThreads) { [self] place, bytes in
            _ = try call { try client.putObject(prefix + place, body: bytes, contentType: Self.contentType(of: place)) }
        }
        passes.withLock { $0[key] = pass }
        defer {
            pass.cancel()
            passes.withLock { if $0[key] === pass { $0[key] = nil } }
        }
        return try local.building(into: stagingFolder, build)
    }

    public func discard(stagingFolder: String) {
        stagedVersions.withLock { $0[stagingFolder] = nil }
        local.discard(stagingFolder: stagingFolder)
    }

    public func publish(stagingFolder: String, manifest: PyramidManifest, id: String, version: String) throws -> Bool {
        if storedManifest(id: id, version: version) != nil {
            local.discard(stagingFolder: stagingFolder)
            return false
        }
        // A progressive build's base: served on this replica only until the version is whole, and uploaded
        // meanwhile (the store's readers see none of it before pyramid.json).
        guard manifest.isComplete else {
            guard try local.publish(stagingFolder: stagingFolder, manifest: manifest, id: id, version: version) else { return false }
            passes.withLock { $0[id + "/" + version] }?.send(levelsFrom: manifest.levelsReady, of: manifest.pyramid)
            let folder = local.folder(id: id, version: version)
            uploads.start(id + "/" + version) { [self] in try upload(folder, as: "", id: id, version: version) }
            return true
        }
        let uploaded = try upload(stagingFolder, as: "", id: id, version: version)
        guard try publishManifest(manifest, id: id, version: version) else {
            local.discard(stagingFolder: stagingFolder)
            return false
        }
        _ = try local.publish(stagingFolder: stagingFolder, manifest: manifest, id: id, version: version)
        settle(id: id, version: version, uploaded: uploaded)
        return true
    }

    public func publishLevel(_ level: Int, from stagedFolder: String, manifest: PyramidManifest,
                             id: String, version: String) throws {
        let place = "\(PyramidBuilder.tilesFolderName)/\(level)"
        guard manifest.isComplete else {
            try local.publishLevel(level, from: stagedFolder, manifest: manifest, id: id, version: version)
            // A level's tiles are being streamed as the pass writes them: nothing to start.
            guard passes.withLock({ $0[id + "/" + version] }) == nil else { return }
            let folder = local.folder(id: id, version: version) + "/" + place
            uploads.start(id + "/" + version) { [self] in try upload(folder, as: place, id: id, version: version) }
            return
        }
        // The last level: the tiles streamed during the pass and the uploads started for the base, then whatever of
        // the local copy and this level they did not put (or put before it changed), then the manifest.
        let tiles = PyramidBuilder.tilesFolderName + "/"
        let streamed = Dictionary(uniqueKeysWithValues: (passes.withLock { $0[id + "/" + version] }?.finish() ?? [:])
            .map { (tiles + $0.key, $0.value) })
        var uploaded = try uploads.finish(id + "/" + version)
        uploaded.formUnion(try upload(local.folder(id: id, version: version), as: "", id: id, version: version,
                                      skipping: uploaded, streamed: streamed))
        uploaded.formUnion(try upload(stagedFolder, as: place, id: id, version: version, streamed: streamed))
        uploaded.formUnion(streamed.keys)
        guard try publishManifest(manifest, id: id, version: version) else {
            // Another builder published this version first: ours goes, theirs is adopted (`PartPublisher`).
            local.discard(stagingFolder: stagedFolder)
            local.withdraw(id: id, version: version)
            throw StoreError(message: "\(id) was published to the store by another builder first")
        }
        try local.publishLevel(level, from: stagedFolder, manifest: manifest, id: id, version: version)
        settle(id: id, version: version, uploaded: uploaded)
    }

    /// Writes the manifest if the store has none: true when this call published the version.
    private func publishManifest(_ manifest: PyramidManifest, id: String, version: String) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let body = [UInt8](try encoder.encode(manifest))
        let result = try call {
            try client.putObject(manifestKey(id, version), body: body, contentType: "application/json", ifNoneMatch: true)
        }
        return result != .alreadyExists
    }

    /// After a publication: the local copy's files counted in the cache, and objects under the version that this
    /// build did not write (left by an older upload that died) deleted.
    private func settle(id: String, version: String, uploaded: Set<String>) {
        cache.adopt(versionFolder: local.folder(id: id, version: version), entries: Self.pyramidEntries)
        let prefix = versionKey(id, version)
        do {
            let strays = try listKeys(prefix: prefix).filter {
                let inside = String($0.dropFirst(prefix.count))
                return inside != FilePyramidStore.manifestName && !uploaded.contains(inside)
            }
            for key in strays { try call { try client.deleteObject(key) } }
        } catch {
            Log.info("cannot clean what an older upload left of \(id) in the store: \(error)")
        }
    }

    /// Puts the pyramid's files under `folder` (only `pyramidEntries` at the top of a version folder) as the
    /// version's `place/...`; returns their paths inside the version.
    /// `streamed`: files sent while the build ran, by their path inside the version, skipped if unchanged since.
    private func upload(_ folder: String, as place: String, id: String, version: String,
                        skipping done: Set<String> = [], streamed: [String: PassUploads.Identity] = [:]) throws -> Set<String> {
        var found: [String] = []
        if let walker = FileManager.default.enumerator(atPath: folder) {
            while let relative = walker.nextObject() as? String {
                if place.isEmpty, !Self.pyramidEntries.contains(relative.split(separator: "/").first.map(String.init) ?? "") { continue }
                var info = stat()
                let inside = place.isEmpty ? relative : place + "/" + relative
                guard stat(folder + "/" + relative, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                      !done.contains(inside), streamed[inside] != PassUploads.Identity(info) else { continue }
                found.append(relative)
            }
        }
        let failure = Mutex<(any Error)?>(nil)
        let threads = Self.uploadThreads, names = found
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in stride(from: thread, to: names.count, by: threads) {
                guard failure.withLock({ $0 == nil }) else { return }
                let name = names[index]
                do {
                    guard let bytes = FileManager.default.contents(atPath: folder + "/" + name) else {
                        throw StoreError(message: "cannot read \(name) of \(id) to upload it")
                    }
                    let inside = place.isEmpty ? name : place + "/" + name
                    _ = try call {
                        try client.putObject(versionKey(id, version) + inside, body: [UInt8](bytes),
                                             contentType: Self.contentType(of: name))
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? error }
                }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return Set(names.map { place.isEmpty ? $0 : place + "/" + $0 })
    }

    static func contentType(of name: String) -> String {
        if name.hasSuffix(".jpeg") || name.hasSuffix(".jpg") { return "image/jpeg" }
        if name.hasSuffix(".png") { return "image/png" }
        if name.hasSuffix(".dzi") { return "application/xml" }
        return "application/octet-stream"
    }

    // MARK: Removing

    public func withdraw(id: String, version: String) {
        // Uploads still running would write after the deletion below.
        _ = try? uploads.finish(id + "/" + version)
        local.withdraw(id: id, version: version)
        cache.forget(under: local.folder(id: id, version: version))
        // Only what was never published: a version whose manifest is in the store is another builder's, whole.
        guard storedManifest(id: id, version: version) == nil else { return }
        deleteObjects(prefix: versionKey(id, version), what: "\(id)")
    }

    public func removeVersions(of id: String, except keep: String?) {
        local.removeVersions(of: id, except: keep)
        let root = local.pyramidsFolder + "/" + id
        cache.forget(under: root, except: keep.map { root + "/" + $0 })
        let prefix = location.key("pyramids/\(id)/")
        do {
            let doomed = try listKeys(prefix: prefix).filter { key in
                keep.map { !key.hasPrefix(prefix + $0 + "/") } ?? true
            }
            // Manifests first: a version stops being published before any of its files goes.
            let manifests = doomed.filter { $0.hasSuffix("/" + FilePyramidStore.manifestName) }
            for key in manifests + doomed.filter({ !$0.hasSuffix("/" + FilePyramidStore.manifestName) }) {
                try call { try client.deleteObject(key) }
            }
        } catch {
            Log.info("cannot remove the old versions of \(id) from the store: \(error)")
        }
    }

    private func deleteObjects(prefix: String, what: String) {
        do {
            for key in try listKeys(prefix: prefix) { try call { try client.deleteObject(key) } }
        } catch {
            Log.info("cannot remove an unpublished upload of \(what) from the store: \(error)")
        }
    }

    /// Every key under `prefix`, page by page.
    private func listKeys(prefix: String) throws -> [String] {
        var keys: [String] = []
        var token: String?
        for _ in 0..<Self.maxListingPages {
            let page = try call { try client.listObjects(prefix: prefix, continuationToken: token, maxKeys: 1000) }
            keys += page.objects.map(\.key)
            guard let next = page.nextContinuationToken else { return keys }
            token = next
        }
        throw StoreError(message: "more than \(Self.maxListingPages) pages of keys under \(prefix)")
    }

    // MARK: Reading

    public var fetchesOnMiss: Bool { true }

    public func fetch(_ path: String) throws -> Bool {
        if access(path, F_OK) == 0 { return true }
        guard let inside = relative(path) else { return false }
        return try coalescer.run(inside) {
            if access(path, F_OK) == 0 { return true }  // placed by the fetch that just ended
            let object: S3Object
            do {
                object = try call { try client.getObject(location.key("pyramids/" + inside)) }
            } catch let error as S3Error where error.status == 404 {
                return false
            } catch {
                counts.withLock { $0.failures += 1 }
                throw error
            }
            counts.withLock { $0.fetches += 1 }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            // Not flushed: an empty file left by a power cut is removed at start (`StoreDiskCache.adopt`).
            try AtomicFile.publish(object.body, at: path, durability: .none)
            cache.add(path, size: object.body.count)
            return true
        }
    }

    public func noteServed(_ path: String) {
        cache.touch(path)
    }

    public var unreachableReason: String? { reachability.failure }

    /// At start: the versions already in the local copy and complete are counted in the cache.
    private func adoptLocalVersions() {
        let files = FileManager.default
        for id in (try? files.contentsOfDirectory(atPath: local.pyramidsFolder)) ?? [] {
            for version in (try? files.contentsOfDirectory(atPath: local.pyramidsFolder + "/" + id)) ?? []
            where local.manifest(id: id, version: version) != nil {
                cache.adopt(versionFolder: local.folder(id: id, version: version), entries: Self.pyramidEntries)
            }
        }
    }

    // MARK: Local paths

    public func tilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String {
        local.tilePath(id: id, version: version, level: level, column: column, row: row)
    }

    public func previewPath(id: String, version: String) -> String { local.previewPath(id: id, version: version) }

    public func alphaTilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String {
        local.alphaTilePath(id: id, version: version, level: level, column: column, row: row)
    }

    public func alphaPreviewPath(id: String, version: String) -> String { local.alphaPreviewPath(id: id, version: version) }

    public func descriptorPath(id: String, version: String) -> String { local.descriptorPath(id: id, version: version) }

    public func versionFolder(id: String, version: String) -> String { local.versionFolder(id: id, version: version) }
}
