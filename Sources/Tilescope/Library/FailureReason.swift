import Foundation
import Imaging

/// The reason a client is shown for a source that cannot be built: the file's name, then the
/// error's text with every server path reduced to its last component, so a reason never reveals
/// where the server keeps its folders, and without libvips's noise ("unix error: Unknown error -1").
enum FailureReason {
    static func text(fileName: String, sourcePath: String, _ error: any Error) -> String {
        let body = withoutNoise(withoutPaths("\(error)", sourcePath: sourcePath, fileName: fileName))
        return body.hasPrefix(fileName + ":") ? body : "\(fileName): \(body)"  // not "a.png: a.png: ..."
    }

    /// `sourcePath` becomes `fileName`; any other absolute path becomes its last component.
    static func withoutPaths(_ text: String, sourcePath: String, fileName: String) -> String {
        let named = text.replacingOccurrences(of: sourcePath, with: fileName)
        let range = NSRange(named.startIndex..., in: named)
        return absolutePath.stringByReplacingMatches(in: named, range: range, withTemplate: "$1")
    }

    /// Drops what says nothing: libvips's "unix error: Unknown error -1" (an errno it never had), and
    /// the empty lines left around it. Text that is only noise is kept as it is, rather than empty.
    static func withoutNoise(_ text: String) -> String {
        let range = NSRange(text.startIndex..., in: text)
        let cleaned = noise.stringByReplacingMatches(in: text, range: range, withTemplate: "")
        let lines = cleaned.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? text : lines.joined(separator: "\n")
    }

    /// Two or more `/`-led components at the start of a word (not "5/10"); the last one is kept.
    /// A constant pattern: it compiles or no test passes.
    private static let absolutePath = try! NSRegularExpression(pattern: #"(?<![^\s"'(=:])(?:/[^/\s"':]+)+/([^/\s"':]+)"#)
    /// A constant pattern: it compiles or no test passes.
    private static let noise = try! NSRegularExpression(pattern: #"unix error: Unknown error -?[0-9]+"#)
}

/// Whose fault a failed build is. The file's own (libvips cannot decode it, it declares too many
/// pixels) is a verdict on that version of the file: remembered, so it is not built again until it
/// changes. The machine's (a full disk, an I/O error, a quota, memory, a folder that vanished, a
/// build stopped) says nothing about the file: it is retried, after a pause that grows, and never
/// remembered, so a restart builds it again.
enum FailureCause: Equatable {
    case file
    case machine

    static func of(_ error: any Error) -> FailureCause {
        // Only libvips judges the pixels; a store, folder or catalog error is never the file's. A bucket object
        // refused for its size or declared pixels is judged on what it is, as libvips's verdict is.
        if error is SourceDownload.Refused { return .file }
        guard let vips = error as? VipsError else { return .machine }
        return isMachine(vips.message) ? .machine : .file
    }

    /// Whether libvips's text tells of the machine rather than of the file.
    static func isMachine(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return machineSigns.contains { lowered.contains($0) }
    }

    /// The system's texts (strerror) for what fails on a machine, and libvips's and libjpeg's own.
    /// Writes only ever go to the server's folders: no write failure is the source's fault.
    static let machineSigns: [String] = [
        String(cString: strerror(ENOSPC)), String(cString: strerror(EIO)), String(cString: strerror(EDQUOT)),
        String(cString: strerror(ENOMEM)), String(cString: strerror(EROFS)), String(cString: strerror(EMFILE)),
        String(cString: strerror(ENFILE)), String(cString: strerror(ENOENT)), String(cString: strerror(EACCES)),
        String(cString: strerror(EINTR)), String(cString: strerror(ESTALE)), String(cString: strerror(EFBIG)),
        "out of memory", "out of disk space", "write error", "write failed", "unable to write", "cannot write",
        "cannot move", "killed",
    ].map { $0.lowercased() }
}
