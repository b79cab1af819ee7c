import Foundation

/// Server messages on stderr, one line each, written whole (stderr is unbuffered,
/// so lines from different threads never interleave mid-line).
public enum Log {
    nonisolated(unsafe) public static var quiet = false
    /// Which replica writes, in every line (`tilescope[replica-2]: ...`) when several share one
    /// database; empty for a single server. Set once at start, before any thread logs.
    nonisolated(unsafe) public static var replica = ""

    public static func info(_ message: String) {
        guard !quiet else { return }
        write("\(prefix): \(message)\n")
    }

    public static func error(_ message: String) {
        write("\(prefix): error: \(message)\n")
    }

    private static var prefix: String { replica.isEmpty ? "tilescope" : "tilescope[\(replica)]" }

    private static func write(_ line: String) {
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Foundation.write(2, $0.baseAddress, $0.count) }
    }
}
