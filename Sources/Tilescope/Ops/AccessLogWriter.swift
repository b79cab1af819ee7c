import Foundation
import Synchronization

/// Takes finished access-log lines from the server's poll threads and writes them to stdout on a
/// thread of its own, so that a stdout nobody reads costs log lines, never answers.
///
/// Why: a `write` to a pipe that is full blocks. With one blocking `write` per line on the poll thread
/// that finished the request, a paused terminal (Ctrl-S), `tilescope serve | less` or a slow log driver
/// filled the pipe's 64 KiB and then held every poll thread: the whole server stopped answering,
/// health checks included. Here a poll thread only copies its line into a bounded buffer under a lock
/// and returns; when the buffer is full the line is dropped and counted
/// (`tilescope_access_log_dropped_lines_total`), and once the writer has caught up it says on stderr how
/// many were lost (at most once per `reportInterval`).
///
/// Lines stay whole: each is copied in one piece under the lock, and the writer takes everything that
/// has gathered (double-buffered: the poll threads fill one buffer while the writer empties the other)
/// and writes it to the end, retrying partial writes and EINTR, so lines from different threads never
/// mix. Waking the writer for every line cost more than the `write` it saved (a futex wake and a
/// context switch per request: 52.5 against 41.1 us of CPU per tile with stdout on /dev/null;
/// docs/benchmarks.md), so
/// once lines are waiting the writer lingers up to `linger` seconds, or until `batchBytes` have
/// gathered, before it writes: one wake-up and one `write` per batch. An idle writer waits without
/// a timer; the first line wakes it.
final class AccessLogWriter: Sendable {
    /// Bytes that may wait for the writer, besides the batch it is writing: 1 MiB is about 7,000
    /// common-format lines, seconds of a busy server, so only a stdout that stalls loses lines.
    static let defaultCapacity = 1 << 20

    /// Bytes worth a `write` at once (a pipe's whole buffer): the poll threads wake the writer for them.
    static let batchBytes = 64 << 10
    /// How long the first waiting line may wait for others before it is written.
    static let linger = 0.02

    let capacity: Int
    private let descriptor: Int32
    private let reportInterval: Double
    private let report: @Sendable (String) -> Void
    private let state: Mutex<State>
    /// Signalled once for each time the writer said it would wait (`State.waiting`) and was woken.
    private let wakeup = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let dropped = Atomic<Int>(0)

    private enum Waiting { case no, forLine, forBatch }

    private struct State {
        /// Whole lines, each ending in a newline, waiting for the writer.
        var pending: [UInt8] = []
        /// What the writer waits on `wakeup` for: the next line, or a batch's worth (or the stop).
        var waiting = Waiting.no
        var stopping = false
        /// The descriptor cannot be written any more (EPIPE, EBADF): lines are dropped from then on.
        var closed = false
        /// Dropped since the last report on stderr.
        var unreported = 0
    }

    /// - Parameters:
    ///   - report: where the dropped-lines message goes (stderr through `Log.info`; tests collect it).
    init(descriptor: Int32 = 1, capacity: Int = AccessLogWriter.defaultCapacity, reportInterval: Double = 10,
         report: @escaping @Sendable (String) -> Void = Log.info) {
        self.descriptor = descriptor
        self.capacity = max(1, capacity)
        self.reportInterval = reportInterval
        self.report = report
        var pending: [UInt8] = []
        pending.reserveCapacity(self.capacity)  // untouched pages cost no memory until lines fill them
        state = Mutex(State(pending: pending))
        let thread = Thread { [self] in run() }
        thread.name = "access-log"
        thread.start()
    }

    /// Lines dropped since start because the buffer was full or stdout could not be written.
    var droppedLines: Int { dropped.load(ordering: .relaxed) }

    /// Queues `line` (without its newline) and returns at once; drops it if the buffer is full.
    /// Called on the poll threads after every request.
    func append(_ line: [UInt8]) {
        enum Outcome { case queued, queuedAndWake, dropped }
        let outcome = state.withLock { state -> Outcome in
            guard !state.closed, !state.stopping, state.pending.count + line.count + 1 <= capacity else {
                state.unreported += 1
                return .dropped
            }
            state.pending.append(contentsOf: line)
            state.pending.append(10)
            switch state.waiting {
            case .no: return .queued
            case .forBatch where state.pending.count < Self.batchBytes: return .queued
            case .forLine, .forBatch:
                state.waiting = .no
                return .queuedAndWake
            }
        }
        switch outcome {
        case .queued: break
        case .queuedAndWake: wakeup.signal()
        case .dropped: dropped.add(1, ordering: .relaxed)
        }
    }

    /// Writes what is queued and ends the writer, waiting at most `seconds` for it: a stdout that is
    /// not read must not hold the exit. True if everything queued was written (or dropped as counted).
    @discardableResult
    func stop(deadline seconds: Double) -> Bool {
        let wake = state.withLock { state -> Bool in
            state.stopping = true
            defer { state.waiting = .no }
            return state.waiting != .no
        }
        if wake { wakeup.signal() }
        guard ended.wait(timeout: .now() + max(0, seconds)) == .success else { return false }
        ended.signal()  // for a later call
        return true
    }

    // MARK: - The writer thread

    private func run() {
        // A closed pipe then fails the write with EPIPE instead of killing the process (the server ignores
        // SIGPIPE too, but this writer does not rely on who started it).
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)

        var batch: [UInt8] = []
        batch.reserveCapacity(capacity)
        var lastReport = -Double.infinity
        var lingered = false
        writing: while true {
            enum Next { case write, waitForLine, waitForBatch, end }
            let next = state.withLock { state -> Next in
                let finishing = state.stopping || state.closed
                if state.pending.isEmpty {
                    if finishing { return .end }
                    state.waiting = .forLine
                    return .waitForLine
                }
                guard finishing || lingered || state.pending.count >= Self.batchBytes else {
                    state.waiting = .forBatch
                    return .waitForBatch
                }
                swap(&state.pending, &batch)
                return .write
            }
            switch next {
            case .waitForLine:
                wakeup.wait()
            case .waitForBatch:
                if wakeup.wait(timeout: .now() + Self.linger) == .timedOut {
                    // A line may have woken it just as the wait ended: then take that signal too, so that
                    // every signal answers exactly one wait.
                    let signalled = state.withLock { state -> Bool in
                        defer { state.waiting = .no }
                        return state.waiting == .no
                    }
                    if signalled { wakeup.wait() }
                }
                lingered = true
            case .end:
                break writing
            case .write:
                lingered = false
                let error = writeWhole(batch)
                batch.removeAll(keepingCapacity: true)
                if let error, error == EPIPE || error == EBADF {
                    closeForGood(error)
                    break writing
                }
                if error == nil, Self.seconds() - lastReport >= reportInterval, reportDrops() {
                    lastReport = Self.seconds()
                }
            }
        }
        reportDrops()
        ended.signal()
    }

    /// Writes `bytes` to the end; nil when done, else the error that stopped it (the lines not written
    /// are counted as dropped).
    private func writeWhole(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let count = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count > 0 {
                    offset += count
                    continue
                }
                let error = count < 0 ? errno : EIO
                if error == EINTR { continue }
                if error == EAGAIN {  // a stdout someone made non-blocking: wait until it takes bytes
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                let lost = raw[offset...].reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
                dropped.add(lost, ordering: .relaxed)
                state.withLock { $0.unreported += lost }
                return error
            }
            return nil
        }
    }

    private func closeForGood(_ error: Int32) {
        let waiting = state.withLock { state -> Int in
            state.closed = true
            let lines = state.pending.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
            state.pending.removeAll()
            state.unreported += lines
            return lines
        }
        dropped.add(waiting, ordering: .relaxed)
        report("access log off: cannot write to stdout (\(String(cString: strerror(error))))")
    }

    /// Says on stderr how many lines were dropped since the last time; false if none were.
    @discardableResult
    private func reportDrops() -> Bool {
        let count = state.withLock { state -> Int in
            defer { state.unreported = 0 }
            return state.unreported
        }
        guard count > 0 else { return false }
        report("\(count) access-log lines dropped: stdout was not read")
        return true
    }

    private static func seconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
