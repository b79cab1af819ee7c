import CLibcShims
import Foundation
import Synchronization

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
    private var flushAsked = false
    private var flushesDone = 0

    init(folder: String, interval: TimeInterval = 2) {
        self.folder = folder
        self.interval = interval
    }

    /// Runs `work` with the write-behind thread going, and ends that thread (waiting for its flush in
    /// progress, if any) before returning.
    func during<T>(_ work: () throws -> T) rethrows -> T {
        let thread = Thread { self.run() }
        thread.name = "write-behind"
        Self.running.withLock { $0[folder] = self }
        thread.start()
        defer {
            Self.running.withLock { $0[folder] = nil }
            stop()
        }
        return try work()
    }

    /// The write-behind threads going, by staging folder.
    private static let running = Mutex<[String: WriteBehind]>([:])

    /// Ends the write-behind of the staging folder that holds `path`, without waiting: once the full pass
    /// has written its last tile, the flush before the complete manifest writes out the rest, and a
    /// periodic flush started after it (with whatever else the machine wrote meanwhile) would only hold
    /// up the build's end, which waits for the flush in progress.
    static func endWrites(under path: String) {
        writer(under: path)?.signalStop()
    }

    /// Starts writing the folder out now, without waiting: the full pass has written its last tile and what
    /// follows (the base stitched from them, on a photo 20 ms) needs the processor, not the disk, so the flush
    /// before the complete manifest then finds only the preview and the manifests left.
    func writeOutNow() {
        condition.lock()
        flushAsked = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the staging folder that holds `path` is still being written out every few seconds.
    static func isWriting(under path: String) -> Bool {
        guard let writer = writer(under: path) else { return false }
        writer.condition.lock()
        defer { writer.condition.unlock() }
        return !writer.stopping
    }

    /// How many times the write-behind of the staging folder that holds `path` has written it out so far.
    static func flushes(under path: String) -> Int? {
        guard let writer = writer(under: path) else { return nil }
        writer.condition.lock()
        defer { writer.condition.unlock() }
        return writer.flushesDone
    }

    private static func writer(under path: String) -> WriteBehind? {
        running.withLock { running in running.first { path == $0.key || path.hasPrefix($0.key + "/") }?.value }
    }

    private func signalStop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !stopping {
            if !flushAsked { _ = condition.wait(until: Date().addingTimeInterval(interval)) }
            if stopping { break }
            flushAsked = false
            condition.unlock()
            flushOnce()
            condition.lock()
            flushesDone += 1
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
