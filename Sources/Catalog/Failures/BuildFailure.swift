/// A source file version whose pyramid could not be built, and why.
public struct BuildFailure: Sendable, Equatable {
    /// The file's name in the images folder.
    public var fileName: String
    /// The file's fingerprint (`SourceFingerprint.value`) when the build failed.
    public var version: String
    /// The reason shown to clients, already free of server paths.
    public var reason: String

    public init(fileName: String, version: String, reason: String) {
        self.fileName = fileName
        self.version = version
        self.reason = reason
    }
}
