import Catalog
import Foundation
import Glibc

/// Which images are private: a file's own rule in the captions sidecar (`"access": "private"` or
/// `"public"`) wins; else `--private-images`, a comma-separated list of shell patterns matched against the
/// file name (`*` makes every image private, `scans/*` or `*.svs` some of them). Nothing is private by default.
public struct PrivateImages: Sendable, Equatable {
    /// The patterns, as given (empty: only sidecar rules make an image private).
    public let patterns: [String]

    public static let none = PrivateImages(patterns: [])

    public init(patterns: [String]) {
        self.patterns = patterns
    }

    /// `--private-images`' value: patterns separated by commas, blanks around them ignored; a pattern fnmatch
    /// cannot read is refused with its reason.
    public init(parsing text: String) throws(UsageError) {
        let patterns = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for pattern in patterns where pattern.utf8.count > 256 {
            throw UsageError("private-images: a pattern is at most 256 bytes, not \(pattern.utf8.count)")
        }
        self.init(patterns: patterns)
    }

    /// Whether the file `fileName` is private under `captions` (the sidecar as last read).
    public func isPrivate(fileName: String, captions: Captions) -> Bool {
        if let rule = captions.access(forFile: fileName) { return rule == .private }
        return matches(fileName)
    }

    /// Whether a pattern names `fileName` (FNM_PERIOD off: `*` covers dot-led names too, none are listed anyway).
    func matches(_ fileName: String) -> Bool {
        patterns.contains { fnmatch($0, fileName, 0) == 0 }
    }
}
