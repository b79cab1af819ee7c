import Catalog

/// Which keys of an images bucket are sources, and under which name: the key below the prefix, when it is
/// a name the server can show and keep. A key is text from the store, so every rule bounds it before use:
/// no control characters (NUL included, or U+FFFD standing for one), no empty, `.` or `..` segment (no leading `/`, no `//`), no hidden
/// segment (`.upload-` files are the server's own), not a "folder" (a trailing `/`), at most
/// `maxNameBytes`, and a last segment a folder file could have (no sidecars, no backups: `SourceFolder`).
/// A name is never made into a local path (downloads are staged under names of their own), so these rules
/// keep names showable and unambiguous; escaping the data folder is impossible by construction.
enum BucketObjectName {
    /// Longest name kept, in UTF-8 bytes (S3's keys are at most 1,024, prefix included).
    static let maxNameBytes = 1024

    /// Why a key is not a source, said once in the log; nil when `name` is one.
    enum Refusal: String, Error, Sendable {
        case outsidePrefix = "outside the prefix"
        case tooLong = "longer than 1024 bytes"
        case controlCharacter = "holds a control character, or U+FFFD in its place"
        case badSegment = "has an empty, '.' or '..' segment"
        case hidden = "is hidden (a segment starting with '.')"
        case notASource = "is a folder marker, sidecar, note or backup"
    }

    /// The name of `key` under `prefix` (no trailing slash; empty for the whole bucket), or why it has none.
    static func name(of key: String, prefix: String) -> Result<String, Refusal> {
        let lead = prefix.isEmpty ? "" : prefix + "/"
        guard key.hasPrefix(lead) else { return .failure(.outsidePrefix) }
        let name = String(key.utf8.dropFirst(lead.utf8.count))!
        guard name.utf8.count <= maxNameBytes else { return .failure(.tooLong) }
        // U+FFFD too: what a store puts for a byte it cannot write in XML (SeaweedFS lists `\u{1}` so), which
        // names no key that a GET would find.
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) || $0.value == 0xfffd }) else {
            return .failure(.controlCharacter)
        }
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = segments.last, !last.isEmpty else { return .failure(.notASource) }
        guard segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return .failure(.badSegment) }
        guard !segments.contains(where: { $0.hasPrefix(".") }) else { return .failure(.hidden) }
        guard SourceFolder.isSourceName(String(last)) else { return .failure(.notASource) }
        return .success(name)
    }

    /// Longest ETag kept: S3's are 34 to about 50 characters; anything far longer is not an ETag.
    static let maxETagBytes = 256

    /// Whether an ETag from a listing can stand in a fingerprint: printable ASCII, bounded.
    static func isUsable(etag: String) -> Bool {
        !etag.isEmpty && etag.utf8.count <= maxETagBytes && etag.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f }
    }
}
