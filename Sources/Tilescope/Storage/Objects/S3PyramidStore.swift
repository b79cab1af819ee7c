import Foundation
import Imaging
import ObjectStore
import Synchronization

/// Pyramids in an S3-compatible bucket (`--store s3://bucket/prefix`), served from local copies:
///
///     {prefix}/pyramids/{id}/{version}/image.dzi, preview.jpeg, ..., packs/{upload}-{n}.pack, packs/{upload}.index,
///                                      pyramid.json
///
/// Builds stage on the local disk as with `FilePyramidStore` (which this store keeps under
/// `{data}/store-cache/`, with its staging folders and build locks). A version's tiles are appended into pack
/// objects of `--store-pack-mb` (1 MB) as they are written (`PackWriter`), its other files uploaded one object each; once
/// complete, the last pack and the packs' index go, then `pyramid.json`, last, with `If-None-Match: *` and the
/// index's name: of two builders of one version one wins, and a reader trusts a version (and its index and packs)
/// only once that object exists, so objects uploaded by a builder that died are never served (strays are deleted).
/// Versions published before packs (a `pyramid.json` naming no index, one object per tile) are read as before.
///
/// A progressive build publishes its base and finer levels on this replica only, in the local copy, as
/// `FilePyramidStore` does; the store gets the version whole when its last level is done. Other replicas
/// see it then, never a part: no level's manifest update has to be made safe on a store with no rename.
///
/// Readers: the paths are the local copy's; a file missing there is fetched once into it (`fetch`, one GET
/// per file however many ask at once: `FetchCoalescer`; a ranged GET of its pack for a packed tile, the version's
/// index read once: `PackIndexes`) and counted in a disk cache bounded by bytes (`StoreDiskCache`), after which it
/// is answered exactly as a local file (same ETags, caches, headers).
public final class S3PyramidStore: PyramidStore, Sendable {
    /// The local copy: staging, build locks, published versions fetched or built here.
    let local: FilePyramidStore
    let location: StoreLocation
    let client: S3Client
    let cache: StoreDiskCache
    private let coalescer = FetchCoalescer<Bool>()
    /// Packed versions' indexes, read once per version.
    private let packIndexes = PackIndexes()
    /// The size a pack is sent at (`--store-pack-mb`); 0: tiles one object each, the layout before packs, which every
    /// replica reads (a rolling upgrade from a version without packs runs its new builders so until the last old
    /// reader is gone).
    let packBytes: Int
    /// The packs of the uploads under way, by `{id}/{version}`.
    private let writers = Mutex<[String: PackWriter]>([:])
    /// A progressive build's parts, uploaded while the build goes on.
    private let uploads = VersionUploads()
    /// The full pass's tiles, uploaded as libvips writes them, by `{id}/{version}`.
    private let passes = Mutex<[String: PassUploads]>([:])
    /// The version each staging folder is for (`makeStagingFolder`), so `building` knows what it uploads.
    private let stagedVersions = Mutex<[String: (id: String, version: String)]>([:])
    let reachability: StoreReachability
    private struct Counts {
        var fetches = 0, failures = 0, indexFetches = 0, puts = 0
    }
    private let counts = Mutex(Counts())

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

    init(location: StoreLocation, dataFolder: String, stagingName: String, cacheBytes: Int, packBytes: Int = 1 << 20) throws {
        self.packBytes = packBytes
        local = try FilePyramidStore(dataFolder: dataFolder + "/" + Self.localFolderName, stagingName: stagingName)
        self.location = location
        do { client = try S3Client(settings: location.settings) } catch { throw UsageError("store: \(error)") }
        cache = StoreDiskCache(limitBytes: cacheBytes)
        let client = self.client, probeKey = location.key("pyramids/")
        reachability = StoreReachability { _ = try client.listObjects(prefix: probeKey, maxKeys: 1) }
        adoptLocalVersions()
    }

    /// Files fetched since start, and fetches that failed (`/metrics`).
    var fetchCounts: (fetches: Int, failures: Int) { counts.withLock { ($0.fetches, $0.failures) } }
    /// Pack indexes read from the store since start (one per packed version read here, `/metrics`).
    var indexFetches: Int { counts.withLock { $0.indexFetches } }
    /// Objects written to the store since start (`/metrics`): a build's cost in requests.
    var puts: Int { counts.withLock { $0.puts } }

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

    /// The build runs with its full pass's tiles streamed into packs (`PassUploads` into this version's `PackWriter`):
    /// the last level's publication then finds most of the version already there. Stopped (PUTs in flight waited
    /// for) before this returns, so a failed build's withdrawal deletes after the last of them.
    public func building<T>(into stagingFolder: String, _ build: (_ passWritten: () -> Void) throws -> T) rethrows -> T {
        guard let (id, version) = stagedVersions.withLock({ $0[stagingFolder] }) else {
            return try local.building(into: stagingFolder, build)
        }
        let key = id + "/" + version
        // A new upload: whatever an earlier build of this version left here is not this one's.
        let writer = makePackWriter(id: id, version: version)
        writers.withLock { $0[key] = writer }
        let tiles = PyramidBuilder.tilesFolderName + "/"
        let prefix = versionKey(id, version), packs = packsTiles
        let pass = PassUploads(passTiles: PyramidBuilder.passTilesFolder(inWork: stagingFolder),
                               publishedTiles: local.folder(id: id, version: version) + "/" + PyramidBuilder.tilesFolderName,
                               threads: Self.uploadThreads) { [self] place, bytes in
            if packs {
                try writer.append(tiles + place, bytes)
            } else {
                try put(prefix + tiles + place, bytes, contentType: Self.contentType(of: place))
            }
        }
        passes.withLock { $0[key] = pass }
        defer {
            pass.cancel()
            passes.withLock { if $0[key] === pass { $0[key] = nil } }
            writers.withLock { if $0[key] === writer { $0[key] = nil } }
        }
        return try local.building(into: stagingFolder, build)
    }

    /// The version's upload's packs: the one `building` made, else a new one.
    private func packWriter(_ key: String, id: String, version: String) -> PackWriter {
        writers.withLock { writers in
            if let writer = writers[key] { return writer }
            let writer = makePackWriter(id: id, version: version)
            writers[key] = writer
            return writer
        }
    }

    private func makePackWriter(id: String, version: String) -> PackWriter {
        let prefix = versionKey(id, version)
        return PackWriter(targetBytes: packBytes) { [self] name, bytes in
            try put(prefix + name, bytes, contentType: "application/octet-stream")
        }
    }

    /// One PUT, counted.
    private func put(_ key: String, _ bytes: [UInt8], contentType: String) throws {
        _ = try call { try client.putObject(key, body: bytes, contentType: contentType) }
        counts.withLock { $0.puts += 1 }
    }

    /// Whether a file (its path inside the version) goes into packs: the tiles.
    static func isPacked(_ inside: String) -> Bool { inside.hasPrefix(PackIndex.packedFolder + "/") }

    /// Whether this server's uploads pack their tiles (`--store-pack-mb` above 0).
    private var packsTiles: Bool { packBytes > 0 }

    public func discard(stagingFolder: String) {
        stagedVersions.withLock { $0[stagingFolder] = nil }
        local.discard(stagingFolder: stagingFolder)
    }

    public func publish(stagingFolder: String, manifest: PyramidManifest, id: String, version: String) throws -> Bool {
        if storedManifest(id: id, version: version) != nil {
            local.discard(stagingFolder: stagingFolder)
            return false
        }
        let key = id + "/" + version
        let writer = packWriter(key, id: id, version: version)
        // A progressive build's base: served on this replica only until the version is whole, and uploaded
        // meanwhile (the store's readers see none of it before pyramid.json).
        guard manifest.isComplete else {
            guard try local.publish(stagingFolder: stagingFolder, manifest: manifest, id: id, version: version) else { return false }
            passes.withLock { $0[key] }?.send(levelsFrom: manifest.levelsReady, of: manifest.pyramid)
            let folder = local.folder(id: id, version: version)
            uploads.start(key) { [self] in try upload(folder, as: "", id: id, version: version, into: writer) }
            return true
        }
        let uploaded = try upload(stagingFolder, as: "", id: id, version: version, into: writer)
        writers.withLock { if $0[key] === writer { $0[key] = nil } }
        let packs = try writer.finish()
        let published = manifest.packed(index: packs.index)
        guard try publishManifest(published, id: id, version: version) else {
            deleteOwn(packs, id: id, version: version)
            local.discard(stagingFolder: stagingFolder)
            return false
        }
        _ = try local.publish(stagingFolder: stagingFolder, manifest: published, id: id, version: version)
        settle(id: id, version: version, written: objects(uploaded, packs), packs: packs)
        return true
    }

    public func publishLevel(_ level: Int, from stagedFolder: String, manifest: PyramidManifest,
                             id: String, version: String) throws {
        let place = "\(PyramidBuilder.tilesFolderName)/\(level)"
        let key = id + "/" + version
        let writer = packWriter(key, id: id, version: version)
        guard manifest.isComplete else {
            try local.publishLevel(level, from: stagedFolder, manifest: manifest, id: id, version: version)
            // A level's tiles are being streamed as the pass writes them: nothing to start.
            guard passes.withLock({ $0[key] }) == nil else { return }
            let folder = local.folder(id: id, version: version) + "/" + place
            uploads.start(key) { [self] in try upload(folder, as: place, id: id, version: version, into: writer) }
            return
        }
        // The last level: the tiles streamed during the pass and the uploads started for the base, then whatever of
        // the local copy and this level they did not put (or put before it changed), then the last pack and the
        // index, then the manifest.
        let tiles = PyramidBuilder.tilesFolderName + "/"
        let streamed = Dictionary(uniqueKeysWithValues: (passes.withLock { $0[key] }?.finish() ?? [:])
            .map { (tiles + $0.key, $0.value) })
        var uploaded = try uploads.finish(key)
        uploaded.formUnion(try upload(local.folder(id: id, version: version), as: "", id: id, version: version, into: writer,
                                      skipping: uploaded, streamed: streamed))
        uploaded.formUnion(try upload(stagedFolder, as: place, id: id, version: version, into: writer, streamed: streamed))
        if !packsTiles { uploaded.formUnion(streamed.keys) }  // put one object each while the pass ran
        writers.withLock { if $0[key] === writer { $0[key] = nil } }
        let packs = try writer.finish()
        let published = manifest.packed(index: packs.index)
        guard try publishManifest(published, id: id, version: version) else {
            // Another builder published this version first: ours goes, theirs is adopted (`PartPublisher`).
            deleteOwn(packs, id: id, version: version)
            local.discard(stagingFolder: stagedFolder)
            local.withdraw(id: id, version: version)
            throw StoreError(message: "\(id) was published to the store by another builder first")
        }
        try local.publishLevel(level, from: stagedFolder, manifest: published, id: id, version: version)
        settle(id: id, version: version, written: objects(uploaded, packs), packs: packs)
    }

    /// The objects an upload wrote, by name inside the version: the files put one each, the packs and their index.
    private func objects(_ uploaded: Set<String>, _ packs: PackWriter.Outcome) -> Set<String> {
        uploaded.filter { !packsTiles || !Self.isPacked($0) }.union(packs.objects)
    }

    /// Writes the manifest if the store has none: true when this call published the version.
    private func publishManifest(_ manifest: PyramidManifest, id: String, version: String) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let body = [UInt8](try encoder.encode(manifest))
        let result = try call {
            try client.putObject(manifestKey(id, version), body: body, contentType: "application/json", ifNoneMatch: true)
        }
        counts.withLock { $0.puts += 1 }
        return result != .alreadyExists
    }

    /// The packs of an upload that lost the publication to another builder's: theirs is the version, ours would be
    /// strays under it.
    private func deleteOwn(_ packs: PackWriter.Outcome, id: String, version: String) {
        for name in packs.objects {
            do { try call { try client.deleteObject(versionKey(id, version) + name) } } catch {
                Log.info("cannot delete \(name) of \(id), an upload that lost its publication: \(error)")
            }
        }
    }

    /// After a publication: the index kept in the local copy (a tile evicted from it is fetched without reading the
    /// index again), the local copy's files counted in the cache, and objects under the version that this build did
    /// not write (left by an older upload that died) deleted.
    private func settle(id: String, version: String, written: Set<String>, packs: PackWriter.Outcome) {
        if let index = packs.index { keepIndex(packs.indexBytes, named: index, id: id, version: version) }
        cache.adopt(versionFolder: local.folder(id: id, version: version), entries: Self.pyramidEntries)
        let prefix = versionKey(id, version)
        do {
            let strays = try listKeys(prefix: prefix).filter {
                let inside = String($0.dropFirst(prefix.count))
                return inside != FilePyramidStore.manifestName && !written.contains(inside)
            }
            for key in strays { try call { try client.deleteObject(key) } }
        } catch {
            Log.info("cannot clean what an older upload left of \(id) in the store: \(error)")
        }
    }

    /// Puts the pyramid's files under `folder` (only `pyramidEntries` at the top of a version folder) as the
    /// version's `place/...`: tiles into `writer`'s packs, the others one object each; returns their paths inside
    /// the version. `streamed`: files sent while the build ran, by their path inside the version, skipped if
    /// unchanged since.
    private func upload(_ folder: String, as place: String, id: String, version: String, into writer: PackWriter,
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
                    if packsTiles, Self.isPacked(inside) {
                        try writer.append(inside, [UInt8](bytes))
                    } else {
                        try put(versionKey(id, version) + inside, [UInt8](bytes), contentType: Self.contentType(of: name))
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
        packIndexes.forget(id: id)
        // Only what was never published: a version whose manifest is in the store is another builder's, whole.
        guard storedManifest(id: id, version: version) == nil else { return }
        deleteObjects(prefix: versionKey(id, version), what: "\(id)")
    }

    public func removeVersions(of id: String, except keep: String?) {
        local.removeVersions(of: id, except: keep)
        let root = local.pyramidsFolder + "/" + id
        cache.forget(under: root, except: keep.map { root + "/" + $0 })
        packIndexes.forget(id: id, except: keep)
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
            // A store known to be away is not waited for on a worker thread: 503 at once, until a probe finds it.
            if let outage = reachability.outage {
                counts.withLock { $0.failures += 1 }
                throw outage
            }
            let body: [UInt8]
            do {
                guard let read = try read(inside) else { return false }
                body = read
            } catch let error as S3Error where error.status == 404 {
                return false
            } catch {
                counts.withLock { $0.failures += 1 }
                throw error
            }
            counts.withLock { $0.fetches += 1 }
            try Self.place(body, at: path)
            cache.add(path, size: body.count)
            return true
        }
    }

    /// The bytes of a published version's file (`{id}/{version}/...`): its byte range of a pack for a packed
    /// version's tile (one ranged GET), else its own object; nil when the version has no such file.
    private func read(_ inside: String) throws -> [UInt8]? {
        let parts = inside.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, Self.isPacked(parts[2]),
              case .packed(let index) = try packIndexes.layout(of: parts[0] + "/" + parts[1], load: {
                  try layout(id: parts[0], version: parts[1])
              }) else {
            return try call { try client.getObject(location.key("pyramids/" + inside)) }.body
        }
        // Every tile of a packed version is in its index: one that is not does not exist.
        guard let entry = index.entries[parts[2]] else { return nil }
        let pack = index.packs[entry.pack]
        let object = try call { try client.getObject(versionKey(parts[0], parts[1]) + pack.name, range: entry.range) }
        if object.range == entry.range { return object.body }
        // A store that ignores Range answers the whole object: the file is cut from it if it is the pack indexed.
        guard object.range == nil, object.body.count == pack.size else {
            throw S3Error.malformedResponse("\(pack.name) of \(parts[0]) answered bytes other than \(entry.range) of \(pack.size)")
        }
        return Array(object.body[entry.range])
    }

    /// How a published version lies in the store: its manifest (the local copy's, else the store's, whose failure is
    /// thrown as it is) names its pack index or none. The index is read from the local copy if it is there and sound,
    /// else from the store (then kept).
    private func layout(id: String, version: String) throws -> PackIndexes.Layout {
        var known = local.manifest(id: id, version: version)
        if known == nil {
            let object = try call { try client.getObject(manifestKey(id, version)) }
            guard let stored = try? JSONDecoder().decode(PyramidManifest.self, from: Data(object.body)),
                  stored.version == version, stored.isComplete else {
                throw S3Error.malformedResponse("the manifest of \(id)/\(version) is not a complete one of that version")
            }
            known = stored
        }
        guard let name = known?.packIndex else { return .objects }
        guard PackIndex.isIndexName(name) else {
            throw S3Error.malformedResponse("the manifest of \(id)/\(version) names an unusable pack index")
        }
        let path = local.folder(id: id, version: version) + "/" + name
        if let bytes = FileManager.default.contents(atPath: path), let index = try? PackIndex.parse([UInt8](bytes)) {
            return .packed(index)
        }
        let object = try call { try client.getObject(versionKey(id, version) + name) }
        counts.withLock { $0.indexFetches += 1 }
        let index: PackIndex
        do { index = try PackIndex.parse(object.body) } catch {
            throw S3Error.malformedResponse("the pack index of \(id)/\(version): \(error)")
        }
        keepIndex(object.body, named: name, id: id, version: version)
        return .packed(index)
    }

    /// Keeps a version's pack index in its local copy, so a tile evicted from it is fetched without reading the index
    /// from the store again (not kept: logged, and read again when needed).
    private func keepIndex(_ bytes: [UInt8], named name: String, id: String, version: String) {
        do {
            try Self.place(bytes, at: local.folder(id: id, version: version) + "/" + name)
        } catch {
            Log.info("cannot keep the pack index of \(id) in \(Self.localFolderName): \(error)")
        }
    }

    /// Writes a file of the local copy whole, its folders made as needed. Not flushed: an empty file left by a power
    /// cut is removed at start (`StoreDiskCache.adopt`), and what the store holds is fetched again.
    private static func place(_ bytes: [UInt8], at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try AtomicFile.publish(bytes, at: path, durability: .none)
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
