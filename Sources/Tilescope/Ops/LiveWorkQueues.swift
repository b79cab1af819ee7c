import Foundation
import Synchronization

/// Every `WorkQueue` of the process, so that its exit waits for the jobs under way.
///
/// Why: a job behind a reply (an AVIF tile, a source pass) runs in libvips and libheif on a thread of its own,
/// and the process's exit tears those libraries down (their static objects go with the exit handlers) while the
/// job still uses them: a test process crashed at its exit so, with signal 11 in libheif on an `avif-tiles`
/// thread, after every test had passed. The first queue registers an exit handler; being registered after the
/// libraries were loaded, it runs before their teardown, refuses new jobs, forgets those not started and waits
/// for those under way, at most `exitWaitSeconds` (a tile's encoding takes well under a second).
final class LiveWorkQueues: Sendable {
    static let shared = LiveWorkQueues(quiescedAtExit: true)
    static let exitWaitSeconds = 10.0

    private struct Weak {
        weak var queue: WorkQueue?
    }
    private let queues = Mutex([Weak]())
    private let registered: Atomic<Bool>

    /// `quiescedAtExit`: register the exit handler with the first queue (the process's list does; a test's not).
    init(quiescedAtExit: Bool) {
        registered = Atomic(!quiescedAtExit)
    }

    func add(_ queue: WorkQueue) {
        queues.withLock { queues in
            queues.removeAll { $0.queue == nil }
            queues.append(Weak(queue: queue))
        }
        if registered.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            atexit(quiesceWorkQueuesAtExit)
        }
    }

    /// Stops every live queue (`WorkQueue.abandonWaitingJobs`), sharing `seconds` among them; how many jobs
    /// were still under way then.
    func quiesce(seconds: Double) -> Int {
        let live = queues.withLock { $0.compactMap(\.queue) }
        let deadline = Date().addingTimeInterval(seconds)
        return live.reduce(0) { left, queue in
            left + queue.abandonWaitingJobs(waitingForRunning: max(0, deadline.timeIntervalSinceNow))
        }
    }
}

/// atexit wants a C function: a named one, not a closure literal.
private func quiesceWorkQueuesAtExit() {
    _ = LiveWorkQueues.shared.quiesce(seconds: LiveWorkQueues.exitWaitSeconds)
}
