/// Remembers failed builds, so a restart does not build an unchanged file that failed again
/// (a truncated gigapixel TIFF can take minutes to fail). One failure per file name: a newer
/// version's failure replaces the older one, and a file that changes gets built again because
/// its fingerprint no longer matches.
public protocol BuildFailureStore: Sendable {
    /// Remembers `failure`, replacing any earlier failure of the same file.
    func record(_ failure: BuildFailure) throws

    /// The remembered failure of exactly this file version, nil if none.
    func failure(fileName: String, version: String) throws -> BuildFailure?

    /// Forgets the file's failure (its build succeeded, or it was deleted).
    func forget(fileName: String) throws
}
