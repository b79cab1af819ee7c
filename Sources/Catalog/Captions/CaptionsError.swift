/// A sidecar that exists but cannot be used; the server logs `description` and keeps its last good captions.
public struct CaptionsError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// The file could not be read (permissions, I/O).
        case unreadable
        /// The file was read but is not the expected JSON object or property-list dictionary.
        case malformed
    }

    public let kind: Kind
    /// The sidecar's path.
    public let file: String
    /// What is wrong, precise enough to fix the file.
    public let reason: String

    public init(_ kind: Kind, file: String, reason: String) {
        self.kind = kind
        self.file = file
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .unreadable: "cannot read the captions sidecar \(file): \(reason)"
        case .malformed: "the captions sidecar \(file) is malformed: \(reason)"
        }
    }
}
