import Foundation
import Imaging

/// Build progress on stderr: a redrawn bar with percent and ETA on a terminal,
/// a plain line every 10% otherwise (logs, CI).
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let isTerminal = isatty(2) != 0
    private var lastLogged: [String: Int] = [:]

    func show(_ id: String, _ progress: BuildProgress) {
        lock.withLock {
            if isTerminal {
                let width = 30
                let filled = width * progress.percent / 100
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                let eta = progress.percent >= 100 ? "done    " : "ETA \(Self.clock(progress.etaSeconds))"
                write("\r\(id) [\(bar)] \(String(format: "%3d", progress.percent))% \(eta)" + (progress.percent >= 100 ? "\n" : ""))
            } else if progress.percent >= (lastLogged[id] ?? -10) + 10 || progress.percent == 100 && lastLogged[id] != 100 {
                lastLogged[id] = progress.percent
                write("\(id): \(progress.percent)% (ETA \(Self.clock(progress.etaSeconds)))\n")
            }
        }
    }

    static func clock(_ seconds: Int) -> String {
        String(format: "%d:%02d", max(0, seconds) / 60, max(0, seconds) % 60)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
