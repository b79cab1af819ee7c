import ScrollGeometry

/// Where pyramids live. Small on purpose: a shared store for many replicas
/// (a network file system or an object store) only has to provide these.
public protocol PyramidStore: Sendable {
    /// The published pyramid of one source version, or nil if there is none (yet).
    func manifest(id: String, version: String) -> PyramidManifest?
    /// A fresh, empty folder to build into; nothing in it is ever served.
    func makeStagingFolder(id: String, version: String) throws -> String
    /// Makes a staged build visible in one atomic step. Returns false if that version
    /// was already published (by another replica, say); the staged copy is then dropped.
    func publish(stagingFolder: String, manifest: PyramidManifest, id: String, version: String) throws -> Bool
    /// Drops a staged build that failed.
    func discard(stagingFolder: String)
    /// Removes every version of `id` except `keep` (nil: all of them).
    func removeVersions(of id: String, except keep: String?)
    /// Local paths for sendfile.
    func tilePath(id: String, version: String, level: Int, column: Int, row: Int) -> String
    func previewPath(id: String, version: String) -> String
    func descriptorPath(id: String, version: String) -> String
}
