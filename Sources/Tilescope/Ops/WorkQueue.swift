import CLibcShims
import Foundation

/// Work done behind the reply (a tile encoded in another format, a tile file written, a pass down a
/// source), on threads of its own so that the request that asked for it is answered now and the
/// workers stay free for the next ones. Named, and counted in /metrics by that name
/// (`tilescope_work_queue_*{queue="..."}`, docs/ops.md), so a queue that falls behind is seen.
///
/// Bounded: at most `capacity` jobs accepted and not finished (waiting or under way). Beyond that a
/// job is refused and counted as dropped, and its owner says what that costs (an AVIF tile is queued
/// again by its next request; an IIIF tile file is written before its reply instead), so memory stays
/// bounded when the work is slower than the requests that ask for it. At most `threads` jobs run at
/// once, each accepted job once, in the order accepted. The threads start when work comes and end when
/// none waits: a server with nothing to do behind its replies holds no thread for it, and each
/// `TilescopeApp` a test makes leaves none behind.
///
/// Not the HTTP workers (`WorkerPool`, which a suspended connection waits for and which never
/// refuses) nor the builds (`BuildQueue`: priorities and leases): docs/architecture.md#threads.
final class WorkQueue: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    struct Counts: Equatable, Sendable {
        /// Accepted and not started.
        var queued = 0
        /// Under way.
        var running = 0
        /// Finished since start.
        var done = 0
        /// Refused since start: the queue was full, or stopped.
        var dropped = 0
    }

    /// The OS priority of the queue's threads (nice), as `CostlyWorkers`'s spare threads.
    static let niceness: Int32 = 10

    let name: String
    let threads: Int
    let capacity: Int

    /// Guards everything below; waited on by `waitUntilIdle` and `shutdown`.
    private let condition = NSCondition()
    private var waiting: [Job] = []
    /// The next job of `waiting` to run: taken jobs are cleared out now and then, not one by one.
    private var head = 0
    private var counts = Counts()
    private var threadsAlive = 0
    private var stopping = false

    init(name: String, threads: Int, capacity: Int) {
        self.name = name
        self.threads = max(1, threads)
        self.capacity = max(1, capacity)
        LiveWorkQueues.shared.add(self)
    }

    /// Accepts `job` unless `capacity` jobs are waiting or under way, or the queue is stopped; false
    /// (and counted as dropped) if refused. Never waits for the work.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        condition.lock()
        guard !stopping, counts.queued + counts.running < capacity else {
            counts.dropped += 1
            condition.unlock()
            return false
        }
        waiting.append(job)
        counts.queued += 1
        // A thread alive takes the job before it ends (it looks for one under this lock), so one more
        // is needed only while fewer than `threads` are alive.
        let start = threadsAlive < threads
        if start { threadsAlive += 1 }
        condition.unlock()
        if start { startThread() }
        return true
    }

    /// A snapshot of the counts.
    var snapshot: Counts {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    /// Waits until no job is waiting or under way, up to `seconds`; false if some still were then.
    func waitUntilIdle(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while counts.queued + counts.running > 0 {
            guard condition.wait(until: deadline) || Date() < deadline else {
                return counts.queued + counts.running == 0
            }
        }
        return true
    }

    /// Refuses every job from now on (counted as dropped); the accepted ones still run.
    func refuseNewJobs() {
        condition.lock()
        stopping = true
        condition.unlock()
    }

    /// Refuses every job from now on and lets the accepted ones finish, waiting for them up to `seconds`.
    /// How many were still waiting or under way then (0: all done). Those still run if the process lives on.
    func shutdown(deadline seconds: Double) -> Int {
        refuseNewJobs()
        guard !waitUntilIdle(seconds: seconds) else { return 0 }
        let left = snapshot
        return left.queued + left.running
    }

    /// Refuses every job from now on, forgets those not started (counted as dropped) and waits up to `seconds`
    /// for those under way; how many were still under way then. For the process's exit (`LiveWorkQueues`):
    /// what was not started is made again on request, by the next process.
    func abandonWaitingJobs(waitingForRunning seconds: Double) -> Int {
        condition.lock()
        stopping = true
        let forgotten = waiting.count - head
        waiting.removeAll()
        head = 0
        counts.dropped += forgotten
        counts.queued -= forgotten
        if counts.queued + counts.running == 0 { condition.broadcast() }
        condition.unlock()
        guard !waitUntilIdle(seconds: seconds) else { return 0 }
        return snapshot.running
    }

    private func startThread() {
        // Strong: the queue lives while its threads do (an owner gone meanwhile must not trap a thread).
        let thread = Thread { [self] in
            // The kernel's name is what top, perf and /proc show (Foundation keeps `Thread.name` to itself on Linux).
            ts_set_thread_name(name)
            // Nobody waits for this work (its request was answered already), so it yields the CPU to the
            // threads someone does wait for: the poll threads' answers and the renders within budget.
            _ = ts_lower_thread_priority(Self.niceness)
            while let job = next() {
                job()
                finished()
            }
        }
        thread.name = name
        thread.start()
    }

    /// The next job, marked under way; nil (and the thread counted out) when none waits.
    private func next() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        guard head < waiting.count else {
            threadsAlive -= 1
            waiting.removeAll(keepingCapacity: waiting.capacity <= 1024)
            head = 0
            return nil
        }
        let job = waiting[head]
        waiting[head] = {}  // the job's captures (a tile's bytes) go now, not when the array is cleared
        head += 1
        if head > 1024 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        counts.queued -= 1
        counts.running += 1
        return job
    }

    private func finished() {
        condition.lock()
        counts.running -= 1
        counts.done += 1
        if counts.queued + counts.running == 0 { condition.broadcast() }
        condition.unlock()
    }
}
