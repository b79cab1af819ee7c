import CLibcShims
import Foundation
import Imaging

/// Pyramids in the data folder:
///
///     pyramids/{id}/{version}/image.dzi, image_files/..., preview.jpeg, pyramid.json
///     staging/{owner}/{id}-{version}-{random}/   builds in progress, one owner folder per store
///     staging/{owner}.lock                        held while that store lives; a free one is wiped
///     building/{id}-{version}.lock                held by the one process building that version (`BuildLock`)
///
/// A build is published by renaming its staging folder into `pyramids/`: atomic on one
/// file system, so a reader sees either no pyramid or a whole part of one, even after kill -9.
/// A progressive build publishes its base (descriptor, preview, coarse levels) that way, then
/// renames each finer level's folder into `image_files/` and replaces `pyramid.json`, whose
/// `readyLevels` says how many levels are there. A version whose manifest is not complete is
/// never taken for a built one (`manifest(id:version:)`), so after a crash it is built again.
public struct FilePyramidStore: PyramidStore {
    public let dataFolder: String
    var pyramidsFolder: String { dataFolder + "/pyramids" }
    /// The staging folder's name: `staging`, or one per replica when replicas share the data
    /// folder (each wipes only its own at start, never another's build in progress).
    public let stagingName: String
    /// This store's own staging folder (`StagingArea`): another store on the same data folder, in
    /// this process or another, never wipes it while this one lives.
    private let staging: StagingArea
    var stagingRoot: String { staging.folder }

    public init(dataFolder: String, stagingName: String = "staging") throws {
        self.dataFolder = dataFolder
        self.stagingName = stagingName
        try FileManager.default.createDirectory(atPath: dataFolder + "/pyramids", withIntermediateDirectories: true)
        staging = try StagingArea(root: dataFolder + "/" + stagingName)
        BuildLock.wipeFree(in: dataFolder + "/building")
    }

    func folder(id: String, version: String) -> String { "\(pyramidsFolder)/\(id)/\(version)" }

    public func manifest(id: String, version: String) -> PyramidManifest? {
        guard let manifest = publishedManifest(id: id, version: version), manifest.isComplete else { return nil }
        return manifest
    }

    /// Whatever `pyramid.json` says, complete or not.
    func publishedManifest(id: String, version: String) -> PyramidManifest? {
        let path = folder(id: id, version: version) + "/" + Self.manifestName
        guard let data = FileManager.default.contents(atPath: path),
              let manifest = try? JSONDecoder().decode(PyramidManifest.self, from: data),
              manifest.version == version else { return nil }
        return manifest
    }

    static let manifestName = "pyramid.json"

    public func holdBuild(id: String, version: String, wait: Bool) throws -> (any BuildHold)? {
        try BuildLock.take("\(dataFolder)/building/\(id)-\(version).lock", wait: wait)
    }

    public func makeStagingFolder(id: String, version: String) throws -> String {
        let path = "\(stagingRoot)/\(id)-\(version)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    public func publish(stagingFolder: String, manifest: PyramidManifest, id: String, version: String) throws -> Bool {
        try Self.encoded(manifest).write(to: URL(fileURLWithPath: stagingFolder + "/" + Self.manifestName))
        // A partial version needs no flush: it is never taken for a built one (after a power cut too, it
        // is built again), and not waiting for the disk is what shows a new image early.
        if manifest.isComplete {
            WriteBehind.endWrites(under: stagingFolder)
            try Self.writeOut(stagingFolder)
        }
        try FileManager.default.createDirectory(atPath: "\(pyramidsFolder)/\(id)", withIntermediateDirectories: true)
        let target = folder(id: id, version: version)
        var renamed = rename(stagingFolder, target) == 0
        var error = errno
        if !renamed && (error == ENOTEMPTY || error == EEXIST) && publishedManifest(id: id, version: version)?.isComplete != true {
            // A partial version left by a build that was killed: its levels are whole but it is not
            // finished, and this build replaces it.
            withdraw(id: id, version: version)
            renamed = rename(stagingFolder, target) == 0
            error = errno
        }
        guard renamed else {
            discard(stagingFolder: stagingFolder)
            if error == ENOTEMPTY || error == EEXIST { return false }
            throw StoreError(message: "cannot publish \(id): \(String(cString: strerror(error)))")
        }
        return true
    }

    public func publishLevel(_ level: Int, from stagedFolder: String, manifest: PyramidManifest,
                             id: String, version: String) throws {
        let published = folder(id: id, version: version)
        // Levels are handed over once the full pass has written every tile: nothing is left to write behind.
        WriteBehind.endWrites(under: stagedFolder)
        // Before the manifest that says "complete", every tile of every level must be on disk (one syncfs
        // covers the levels published before, unflushed, since they were partial).
        if manifest.isComplete { try Self.writeOut(stagedFolder) }
        let target = "\(published)/\(PyramidBuilder.tilesFolderName)/\(level)"
        guard rename(stagedFolder, target) == 0 else {
            let error = errno
            throw StoreError(message: "cannot publish level \(level) of \(id): \(String(cString: strerror(error)))")
        }
        // The level's rename on disk before the manifest that says "complete" can be: an fsync of the folder it
        // was renamed into, not a second syncfs, which waited for whatever else the machine had written since
        // the first (other builds' tiles on a shared disk).
        if manifest.isComplete { try Self.flushFolder("\(published)/\(PyramidBuilder.tilesFolderName)") }
        // The manifest is replaced, never rewritten in place: a reader sees the old one or the new one. A
        // complete one is flushed, and its name too (a partial one, never taken for a built version, is not).
        do {
            let bytes = [UInt8](try Self.encoded(manifest))
            let path = "\(published)/\(Self.manifestName)"
            if manifest.isComplete {
                try BuildPhases.timing(.flush) { try AtomicFile.publish(bytes, at: path, durability: .fileAndFolder) }
            } else {
                try AtomicFile.publish(bytes, at: path, durability: .none)
            }
        } catch let failure as AtomicFile.Failure {
            throw StoreError(message: "cannot record level \(level) of \(id): \(failure)")
        }
    }

    /// The staged tiles are written out while they are made (`WriteBehind`), not all after the last one.
    /// Once the pass has written its last tile, the write-out starts while the base is stitched from them
    /// (`WriteBehind.writeOutNow`).
    public func building<T>(into stagingFolder: String, _ build: (_ passWritten: () -> Void) throws -> T) rethrows -> T {
        let writer = WriteBehind(folder: stagingFolder)
        return try writer.during { try build(writer.writeOutNow) }
    }

    public func withdraw(id: String, version: String) {
        let doomed = "\(stagingRoot)/removed-\(id)-\(version)-\(UUID().uuidString.prefix(8))"
        if rename(folder(id: id, version: version), doomed) == 0 { try? FileManager.default.removeItem(atPath: doomed) }
    }

    private static func encoded(_ manifest: PyramidManifest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(manifest)
    }

    /// Every tile on disk before the rename publishes them: renamed with their data still in the page cache,
    /// they could read back empty after a power cut, and a published version is cached for a year. One
    /// syncfs for the whole file system rather than an fsync per tile: writing out 6,000 tile-sized files
    /// took about 0.1 s here, against 8 to 9 s of building a 16384² image (bench/run's build times
    /// include it).
    private static func writeOut(_ folder: String) throws {
        try BuildPhases.timing(.flush) { try writeOutMeasured(folder) }
    }

    private static func writeOutMeasured(_ folder: String) throws {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(message: "cannot open \(folder) to flush it") }
        defer { close(descriptor) }
        guard ts_syncfs(descriptor) == 0 else {
            throw StoreError(message: "cannot flush \(folder): \(String(cString: strerror(errno)))")
        }
    }

    /// Removed on the staging area's own thread (`StagingSweeper`): nothing reads a staging folder, and its
    /// removal would otherwise hold up the build that leaves it.
    /// A folder's entries on disk (the names renamed into it), not the files' contents.
    private static func flushFolder(_ folder: String) throws {
        try BuildPhases.timing(.flush) {
            let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw StoreError(message: "cannot open \(folder) to flush it") }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else {
                throw StoreError(message: "cannot flush \(folder): \(String(cString: strerror(errno)))")
            }
        }
    }

    public func discard(stagingFolder: String) {
        staging.sweeper.sweep(stagingFolder)
    }

    public func removeVersions(of id: String, except keep: String?) {
        let root = "\(pyramidsFolder)/\(id)"
        guard let versions = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for version in versions where version != keep {
            // Rename out of sight first, so a half-deleted folder is never served.
            let doomed = "\(stagingRoot)/removed-\(id)-\(version)-\(UUID().uuidString.prefix(8))"
            if rename("\(root)/\(version)", doomed) == 0 { try? FileManager.default.removeItem(atPath: doomed) }
        }
        if keep == nil { try? FileManager.default.removeItem(atPath: root) }
    }

    public func tilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String {
        "\(folder(id: id, version: version))/\(PyramidBuilder.tilesFolderName)/\(level)/\(column)_\(row).jpeg"
    }

    public func previewPath(id: String, version: String) -> String {
        "\(folder(id: id, version: version))/\(PyramidBuilder.previewName)"
    }

    public func alphaTilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String {
        "\(folder(id: id, version: version))/\(PyramidBuilder.tilesFolderName)/\(level)/\(column)_\(row).png"
    }

    public func alphaPreviewPath(id: String, version: String) -> String {
        "\(folder(id: id, version: version))/\(PyramidBuilder.alphaPreviewName)"
    }

    public func descriptorPath(id: String, version: String) -> String {
        "\(folder(id: id, version: version))/\(PyramidBuilder.descriptorName)"
    }

    public func versionFolder(id: String, version: String) -> String {
        folder(id: id, version: version)
    }
}

/// A pyramid store failure.
public struct StoreError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
