import CShims
import Foundation

/// Writes a file system out every few seconds while a long build fills a staging folder, so that the
/// flush before publishing (`syncfs`, which also waits for everything else written meanwhile) finds
/// little left: the write-back overlaps the computation instead of following it. On a 49152^2 build
/// the final flush had a gigabyte of tiles, and other work's data, to write after the last tile.
final class WriteBehind: @unchecked Sendable {
    private let folder: String
    private let interval: TimeInterval
    private let condition = NSCondition()
    private var stopping = false
    private var ended = false

    init(folder: String, interval: TimeInterval = 2) {
        self.folder = folder
        self.interval = interval
    }

    /// Runs `work` with the write-behind thread going, and ends that thread (waiting for its flush in
    /// progress, if any) before returning.
    func during<T>(_ work: () throws -> T) rethrows -> T {
        let thread = Thread { self.run() }
        thread.name = "write-behind"
        thread.start()
        defer { stop() }
        return try work()
    }

    private func run() {
        condition.lock()
        while !stopping {
            _ = condition.wait(until: Date().addingTimeInterval(interval))
            if stopping { break }
            condition.unlock()
            flushOnce()
            condition.lock()
        }
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    private func flushOnce() {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }  // the folder is gone: the build ended or failed
        _ = ts_syncfs(descriptor)  // best effort: the publish flushes for real and reports failures
        close(descriptor)
    }

    private func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
    }
}
