import Foundation

/// The reason a client is shown for a source that cannot be built: the file's name, then the
/// error's text with every server path reduced to its last component, so a reason never reveals
/// where the server keeps its folders.
enum FailureReason {
    static func text(fileName: String, sourcePath: String, _ error: any Error) -> String {
        let body = withoutPaths("\(error)", sourcePath: sourcePath, fileName: fileName)
        return body.hasPrefix(fileName + ":") ? body : "\(fileName): \(body)"  // not "a.png: a.png: ..."
    }

    /// `sourcePath` becomes `fileName`; any other absolute path becomes its last component.
    static func withoutPaths(_ text: String, sourcePath: String, fileName: String) -> String {
        let named = text.replacingOccurrences(of: sourcePath, with: fileName)
        let range = NSRange(named.startIndex..., in: named)
        return absolutePath.stringByReplacingMatches(in: named, range: range, withTemplate: "$1")
    }

    /// Two or more `/`-led components at the start of a word (not "5/10"); the last one is kept.
    /// A constant pattern: it compiles or no test passes.
    private static let absolutePath = try! NSRegularExpression(pattern: #"(?<![^\s"'(=:])(?:/[^/\s"':]+)+/([^/\s"':]+)"#)
}
