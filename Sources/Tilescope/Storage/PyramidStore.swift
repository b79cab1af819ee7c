import Foundation
import ScrollGeometry

/// Where pyramids live. Small on purpose: a shared store for many replicas
/// (a network file system or an object store) only has to provide these.
public protocol PyramidStore: Sendable {
    /// The complete published pyramid of one source version, or nil if there is none (yet). A
    /// version still being published level by level (or left so by a crash) is not complete.
    func manifest(id: String, version: String) -> PyramidManifest?
    /// The right to build `version` of `id` into this store, held until `release` (or until the hold
    /// is gone): nil while another builder, in this process or another sharing the store, holds it
    /// (`wait`: blocks until it is free instead). Processes sharing a store never build one version
    /// at the same time, so none ever publishes over another's build in progress.
    func holdBuild(id: String, version: String, wait: Bool) throws -> (any BuildHold)?
    /// A fresh, empty folder to build into; nothing in it is ever served.
    func makeStagingFolder(id: String, version: String) throws -> String
    /// Makes a staged build (or the base of a progressive one, with a partial `manifest`) visible in
    /// one atomic step. Returns false if that version was already published complete (by another
    /// replica, say); the staged copy is then dropped. A partial version left by an interrupted
    /// build is replaced.
    func publish(stagingFolder: String, manifest: PyramidManifest, id: String, version: String) throws -> Bool
    /// Adds one finished level (a staged folder of its tiles) to a version published partially,
    /// then records it in the version's manifest: the level appears whole or not at all, and the
    /// manifest never names a level that is not all there.
    func publishLevel(_ level: Int, from stagedFolder: String, manifest: PyramidManifest, id: String, version: String) throws
    /// Removes one version (a partial publication whose build failed or whose source changed).
    func withdraw(id: String, version: String)
    /// Runs a build into `stagingFolder` (see the default below). `build` is handed what to call once its full
    /// pass has written its last tile (`PyramidBuilder.build`'s `passWritten`).
    func building<T>(into stagingFolder: String, _ build: (_ passWritten: () -> Void) throws -> T) rethrows -> T
    /// Drops a staged build that failed.
    func discard(stagingFolder: String)
    /// Removes every version of `id` except `keep` (nil: all of them).
    func removeVersions(of id: String, except keep: String?)
    /// Local paths for sendfile.
    func tilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String
    func previewPath(id: String, version: String) -> String
    /// A transparent image's PNG tile (alpha kept) beside its JPEG one, and its PNG preview.
    func alphaTilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String
    func alphaPreviewPath(id: String, version: String) -> String
    func descriptorPath(id: String, version: String) -> String
    /// The folder of one version: files derived from it (IIIF tiles, other formats) are kept there and go with it.
    func versionFolder(id: String, version: String) -> String

    // A store that keeps pyramids elsewhere (an object store) answers from the same local paths once a file
    // has been fetched there. The paths above stay local paths; these say how one gets there.

    /// Whether a file of a published version may be missing from its local path yet be in the store: a miss is
    /// then worth `fetch`, off the poll thread. False for a store on the local (or a shared) file system.
    var fetchesOnMiss: Bool { get }
    /// Brings the file at `path` (one of the paths above, of a published version) to that path, fetching it
    /// from the store; false when the store has no such file. Blocks for a round trip: never on a poll thread.
    /// Throws the store's own error (unreachable, refused) for the caller to turn into an answer.
    func fetch(_ path: String) throws -> Bool
    /// Says that the file at `path` was just answered from the local disk (a bounded cache's recency).
    func noteServed(_ path: String)
    /// Nil while the store answers, else why not (`/readyz`'s `pyramid_store`). Never blocks.
    var unreachableReason: String? { get }
}

/// What `PyramidStore.holdBuild` returns.
public protocol BuildHold: AnyObject, Sendable {
    /// Lets another builder build that version (idempotent).
    func release()
}

extension PyramidStore {
    /// Runs a build into `stagingFolder`. A store whose publish must first write the staged files out
    /// may start doing so meanwhile (`FilePyramidStore` does); by default it just runs `build`.
    public func building<T>(into stagingFolder: String, _ build: (_ passWritten: () -> Void) throws -> T) rethrows -> T {
        try build({})
    }

    /// Every file of a published version is on the local path: nothing to fetch.
    public var fetchesOnMiss: Bool { false }
    public func fetch(_ path: String) throws -> Bool { access(path, F_OK) == 0 }
    public func noteServed(_ path: String) {}
    public var unreachableReason: String? { nil }
}
