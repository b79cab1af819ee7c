import Foundation
import Synchronization

/// Whether this process should get traffic: a list of named checks, each saying nothing
/// when fine or why not. Features add their own (`add`); `/readyz` runs them all.
public final class Readiness: @unchecked Sendable {
    /// One check: `nil` when ready, otherwise a short reason for people.
    public struct Check: Sendable {
        public var name: String
        public var run: @Sendable () -> String?

        public init(_ name: String, run: @escaping @Sendable () -> String?) {
            self.name = name
            self.run = run
        }
    }

    /// The outcome of one check.
    public struct Result: Sendable, Equatable {
        public var name: String
        public var failure: String?
        public var ok: Bool { failure == nil }
    }

    private let lock = NSLock()
    private var checks: [Check] = []
    private let stopping = Atomic<Bool>(false)

    public init() {
        add(Check("accepting") { [weak self] in
            self?.isStopping ?? true ? "shutting down: finishing requests in flight" : nil
        })
    }

    public func add(_ check: Check) {
        lock.lock()
        defer { lock.unlock() }
        checks.append(check)
    }

    /// From now on the process reports not ready, so load balancers move traffic away
    /// while in-flight requests finish.
    public func markStopping() { stopping.store(true, ordering: .relaxed) }

    public var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Runs every check, in the order they were added.
    public func evaluate() -> [Result] {
        lock.lock()
        let checks = self.checks
        lock.unlock()
        return checks.map { Result(name: $0.name, failure: $0.run()) }
    }

    // MARK: - Checks of the data folder

    /// Creates and removes a probe file: catches a read-only mount, a full disk's
    /// inode table, or a folder owned by another user. At most once a second: `/readyz` is
    /// public, and a probe per request would let anyone make the server write as fast as they send.
    public static func writableFolder(_ name: String, path: String,
                                      now: @escaping @Sendable () -> Double = Check.monotonicSeconds) -> Check {
        Check(name) {
            let probe = path + "/.readyz-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return "cannot create a file in \(path): \(String(cString: strerror(errno)))" }
            let written = Foundation.write(descriptor, "ok", 2)
            let failure = written == 2 ? nil : "cannot write to a file in \(path): \(String(cString: strerror(errno)))"
            close(descriptor)
            unlink(probe)
            return failure
        }.throttled(interval: 1, now: now)
    }

    /// The folder exists and is a folder.
    public static func existingFolder(_ name: String, path: String) -> Check {
        Check(name) {
            var info = stat()
            guard stat(path, &info) == 0 else { return "\(path) is missing: \(String(cString: strerror(errno)))" }
            return (info.st_mode & S_IFMT) == S_IFDIR ? nil : "\(path) is not a folder"
        }
    }
}

extension Readiness.Check {
    /// The same check, run at most once per `interval` seconds; calls in between get the last
    /// result. One caller runs it while the others wait for that result, so the check never runs
    /// twice at once.
    public func throttled(interval: Double, now: @escaping @Sendable () -> Double = Readiness.Check.monotonicSeconds) -> Self {
        let run = self.run
        let last = Mutex<(at: Double, failure: String?)?>(nil)
        return Readiness.Check(name) {
            last.withLock { last in
                let time = now()
                if let previous = last, time - previous.at < interval { return previous.failure }
                let failure = run()
                last = (time, failure)
                return failure
            }
        }
    }

    @Sendable public static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
