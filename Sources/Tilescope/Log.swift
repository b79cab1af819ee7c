import Foundation

/// Server messages on stderr, one line each, written whole (stderr is unbuffered,
/// so lines from different threads never interleave mid-line).
public enum Log {
    nonisolated(unsafe) public static var quiet = false

    public static func info(_ message: String) {
        guard !quiet else { return }
        write("tilescope: \(message)\n")
    }

    public static func error(_ message: String) {
        write("tilescope: error: \(message)\n")
    }

    private static func write(_ line: String) {
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Foundation.write(2, $0.baseAddress, $0.count) }
    }
}
