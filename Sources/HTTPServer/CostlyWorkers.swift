import CLibcShims
import Foundation

/// The threads that run costly work (`Reply.costly`: pixels decoded and encoded), in the order a `FairQueue`
/// chooses: `normal` threads (nice 5) for work within its client's budget, and as many `spare` threads at a lower
/// priority (nice 15) for work over it, which also take within-budget work when no normal thread is free for it.
/// On a machine with as many cores as normal threads, a client within its budget thus gets a core at once even
/// while another client's over-budget renders fill the spare threads, and those renders still use whatever CPU
/// it leaves.
final class CostlyWorkers: @unchecked Sendable {
    /// What a queued request does when it runs (with the seconds it waited) or is refused.
    struct Job: Sendable {
        var run: @Sendable (_ waitedSeconds: Double) -> Void
        var refuse: @Sendable (FairQueue<Job>.Refusal) -> Void
    }

    /// OS priorities (nice values). Every render thread is below the poll threads (0), so that a cheap answer's
    /// wake-up preempts a render at once rather than after a scheduler slice (on 2 cores, two renders at nice 0
    /// put the viewer's p99 at 10x its idle one); the spare threads are further below, so within-budget renders
    /// get about nine tenths of a core against them.
    static let normalNiceness: Int32 = 5
    static let spareNiceness: Int32 = 15

    /// A client refused for its budget gets its 429 this much later, not at once: a client that retries at once
    /// (as a greedy one does) would otherwise turn each refusal into another request, thousands a second on the
    /// poll threads that every cheap answer needs (measured: 15,000 a second from 60 connections, the server's
    /// renders starved of CPU). Held, it asks at most twice a second per connection, and a client that honours
    /// `Retry-After` (at least 1 s) loses nothing.
    static let holdSeconds = 0.5
    /// Refusals held at once, at most; beyond, they are sent at once.
    static let maxHeld = 4096

    enum Submission: Sendable {
        case queued
        /// Not queued: answer with this (429 or 503).
        case refused(FairQueue<Job>.Refusal)
        /// The workers or the server are stopping.
        case stopping
    }

    private let condition = NSCondition()
    private var queue: FairQueue<Job>
    private var stopping = false
    /// Normal threads waiting for work: while one is, spare threads leave within-budget work to it.
    private var idleNormalThreads = 0
    /// Refusals waiting for their time (`holdSeconds`), oldest first.
    private var held: [(due: Double, job: Job, refusal: CostlyRefusal)] = []
    private let clock: @Sendable () -> Double
    private let limits: FairQueueLimits

    init(limits: FairQueueLimits, normalThreads: Int, spareThreads: Int, name: String,
         clock: @escaping @Sendable () -> Double = CostlyWorkers.uptime) {
        self.queue = FairQueue(limits: limits)
        self.clock = clock
        self.limits = limits
        for index in 0..<max(1, normalThreads) { start(.normal, name: "\(name)-\(index)") }
        for index in 0..<max(1, spareThreads) { start(.spare, name: "\(name)-s\(index)") }
        startExpiryTimer()
    }

    static func uptime() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Offers a job. `admitted` runs under the queue's lock once the job is queued and before any thread can
    /// take it (the server suspends the connection there, so that no thread answers a connection not yet
    /// suspended). Jobs refused to make room for it are told through their own `refuse`.
    func submit(_ job: Job, client: ClientAddress, pixels: Int, admitted: () -> Bool) -> Submission {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return .stopping
        }
        let now = clock()
        let admission = queue.admit(job, client: client, cost: pixels, now: now)
        // No thread takes the job before the lock is released. If `admitted` fails (the server is stopping), the
        // job stays: it runs, and its answer is dropped with the connection's (`SuspendedConnections`).
        var submission = Submission.queued
        if let refusal = admission.refusal {
            if case .overBudget = refusal, held.count < Self.maxHeld, admitted() {
                held.append((now + Self.holdSeconds, job, refusal))
            } else {
                submission = .refused(refusal)
            }
        } else {
            guard admitted() else {
                condition.unlock()
                return .stopping
            }
            condition.broadcast()
        }
        condition.unlock()
        for (entry, refusal) in admission.evicted { entry.job.refuse(refusal) }
        return submission
    }

    /// Whether the work may run at once on the calling thread (nothing queued or running, the client within its
    /// budget, which is charged).
    func mayRunInline(client: ClientAddress, pixels: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return !stopping && queue.mayRunInline(client: client, cost: pixels, now: clock())
    }

    var counts: FairQueueCounts {
        condition.lock()
        defer { condition.unlock() }
        return queue.counts
    }

    /// Lets queued work finish, then ends the threads.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func start(_ kind: FairQueue<Job>.ThreadKind, name: String) {
        // Strong: the pool lives while its threads do (see `WorkerPool`).
        let thread = Thread { [self] in
            ts_set_thread_name(name)
            _ = ts_lower_thread_priority(kind == .spare ? Self.spareNiceness : Self.normalNiceness)
            while let (entry, waited) = next(for: kind) {
                entry.job.run(waited)
                finished(entry, on: kind)
            }
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func next(for kind: FairQueue<Job>.ThreadKind) -> (FairQueue<Job>.Entry, Double)? {
        condition.lock()
        while true {
            let now = clock()
            let expired = queue.expired(now: now)
            if !expired.isEmpty {
                condition.unlock()
                for (entry, refusal) in expired { entry.job.refuse(refusal) }
                condition.lock()
                continue
            }
            if let entry = queue.next(for: kind, normalThreadsIdle: idleNormalThreads > 0) {
                condition.unlock()
                return (entry, max(0, now - entry.arrival))
            }
            if stopping && queue.waiting(.withinBudget) + queue.waiting(.overBudget) == 0 {
                condition.unlock()
                return nil
            }
            if kind == .normal { idleNormalThreads += 1 }
            condition.wait()
            if kind == .normal { idleNormalThreads -= 1 }
        }
    }

    private func finished(_ entry: FairQueue<Job>.Entry, on kind: FairQueue<Job>.ThreadKind) {
        condition.lock()
        queue.finished(entry, on: kind)
        // A normal thread may have been waiting for this client's share to free up.
        condition.broadcast()
        condition.unlock()
    }

    /// Sends held refusals when due; and jobs are expired when a thread looks for work, so this also refuses those
    /// that wait past their limit while every thread is busy with long renders.
    private func startExpiryTimer() {
        let thread = Thread { [weak self] in
            ts_set_thread_name("costly-expiry")
            while let self, !self.isStopping {
                Thread.sleep(forTimeInterval: Self.timerInterval)
                self.expireNow()
            }
        }
        thread.start()
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// How often held refusals are sent and jobs no thread took in time are refused.
    static let timerInterval = 0.05

    private func expireNow() {
        condition.lock()
        let now = clock()
        let expired = queue.expired(now: now)
        let due = held.prefix { $0.due <= now }
        held.removeFirst(due.count)
        condition.unlock()
        for (entry, refusal) in expired { entry.job.refuse(refusal) }
        for item in due { item.job.refuse(item.refusal) }
    }
}
