import Foundation
import Synchronization
import TestSupport
import Testing
@testable import Tilescope

/// The queue of work behind the reply: bounded (a job beyond its capacity refused and counted), never
/// more than its threads under way, every accepted job run once in order, a shutdown that drains or says
/// how much it left, and its counts in /metrics by name.
@Suite struct WorkQueueTests {
    /// Jobs wait here until the test opens it; each says when it has started.
    final class Gate: Sendable {
        private let opened = DispatchSemaphore(value: 0)
        private let started = DispatchSemaphore(value: 0)
        let ran = Mutex([Int]())

        func job(_ number: Int) -> WorkQueue.Job {
            { [self] in
                started.signal()
                opened.wait()
                opened.signal()  // open for every job after this one too
                ran.withLock { $0.append(number) }
            }
        }

        func open() { opened.signal() }

        /// Waits for `count` more jobs to have started; throws if they have not within a generous deadline.
        func waitForStarts(_ count: Int) throws {
            for _ in 0..<count {
                guard started.wait(timeout: .now() + 30) == .success else { throw TestFailure("a job never started") }
            }
        }
    }

    @Test func aFullQueueRefusesAndCountsWhatItDropsAndRunsEveryJobItAccepted() throws {
        let queue = WorkQueue(name: "test-bounded", threads: 1, capacity: 3)
        let gate = Gate()
        #expect(queue.submit(gate.job(1)))
        #expect(queue.submit(gate.job(2)))
        #expect(queue.submit(gate.job(3)))
        #expect(!queue.submit(gate.job(4)))  // three waiting or under way: full
        try gate.waitForStarts(1)
        #expect(queue.snapshot == WorkQueue.Counts(queued: 2, running: 1, done: 0, dropped: 1))
        #expect(!queue.submit(gate.job(5)))
        gate.open()
        #expect(queue.waitUntilIdle(seconds: 60))
        #expect(gate.ran.withLock { $0 } == [1, 2, 3])  // in the order accepted, each once
        #expect(queue.snapshot == WorkQueue.Counts(queued: 0, running: 0, done: 3, dropped: 2))
        // Room again once they are done.
        #expect(queue.submit(gate.job(6)))
        #expect(queue.waitUntilIdle(seconds: 60))
        #expect(gate.ran.withLock { $0 } == [1, 2, 3, 6])
    }

    @Test func neverMoreThanItsThreadsAtOnceAndEveryJobOnce() throws {
        let queue = WorkQueue(name: "test-threads", threads: 3, capacity: 1000)
        let inside = Mutex((now: 0, most: 0, ran: [Int]()))
        for number in 0..<300 {
            let accepted = queue.submit {
                inside.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                inside.withLock { $0.now -= 1; $0.ran.append(number) }
            }
            #expect(accepted)
        }
        #expect(queue.waitUntilIdle(seconds: 60))
        let final = inside.withLock { $0 }
        #expect(final.most <= 3 && final.now == 0)
        #expect(final.ran.sorted() == Array(0..<300))
        #expect(queue.snapshot == WorkQueue.Counts(queued: 0, running: 0, done: 300, dropped: 0))
    }

    @Test func aShutdownRefusesNewJobsAndReportsWhatIsLeftOrDrains() throws {
        let queue = WorkQueue(name: "test-shutdown", threads: 1, capacity: 8)
        let gate = Gate()
        for number in 1...3 { #expect(queue.submit(gate.job(number))) }
        try gate.waitForStarts(1)
        // The first job cannot end before the gate opens: the shutdown reports all three as left.
        #expect(queue.shutdown(deadline: 0.05) == 3)
        #expect(!queue.submit(gate.job(4)))
        #expect(queue.snapshot.dropped == 1)
        // What was accepted still runs; a second shutdown waits for it and reports nothing left.
        gate.open()
        #expect(queue.shutdown(deadline: 60) == 0)
        #expect(gate.ran.withLock { $0 } == [1, 2, 3])
        #expect(queue.snapshot == WorkQueue.Counts(queued: 0, running: 0, done: 3, dropped: 1))
    }

    @Test func atExitWaitingJobsAreForgottenAndTheOneUnderWayIsWaitedFor() throws {
        let queue = WorkQueue(name: "test-exit", threads: 1, capacity: 8)
        let gate = Gate()
        for number in 1...3 { #expect(queue.submit(gate.job(number))) }
        try gate.waitForStarts(1)
        // The job under way cannot end before the gate opens: it is reported as still under way.
        #expect(queue.abandonWaitingJobs(waitingForRunning: 0.05) == 1)
        #expect(queue.snapshot == WorkQueue.Counts(queued: 0, running: 1, done: 0, dropped: 2))
        #expect(!queue.submit(gate.job(4)))
        gate.open()
        #expect(queue.abandonWaitingJobs(waitingForRunning: 60) == 0)
        // Only the job that had started ran: the exit does not wait for work nobody has begun.
        #expect(gate.ran.withLock { $0 } == [1])
        #expect(queue.snapshot == WorkQueue.Counts(queued: 0, running: 0, done: 1, dropped: 3))
    }

    @Test func everyLiveQueueIsQuiescedAtExit() throws {
        // A list of its own: quiescing the process's would stop the queues of the tests running beside this one.
        let live = LiveWorkQueues(quiescedAtExit: false)
        let queue = WorkQueue(name: "test-live", threads: 1, capacity: 8)
        live.add(queue)
        let gate = Gate()
        #expect(queue.submit(gate.job(1)))
        #expect(queue.submit(gate.job(2)))
        try gate.waitForStarts(1)
        gate.open()
        // The started job is finished, the waiting one forgotten or run, and no job is taken afterwards.
        #expect(live.quiesce(seconds: 60) == 0)
        #expect(queue.snapshot.running == 0 && queue.snapshot.queued == 0)
        #expect(!queue.submit(gate.job(3)))
    }

    @Test func itsCountsAreInTheMetricsByName() throws {
        let operations = Operations(accessLog: nil)
        let queue = WorkQueue(name: "test-metrics", threads: 1, capacity: 1)
        operations.adopt(queue)
        let gate = Gate()
        #expect(queue.submit(gate.job(1)))
        #expect(!queue.submit(gate.job(2)))
        try gate.waitForStarts(1)
        let during = operations.metrics.render()
        #expect(during.contains("tilescope_work_queue_jobs{queue=\"test-metrics\",state=\"running\"} 1\n"), "\(during)")
        #expect(during.contains("tilescope_work_queue_jobs{queue=\"test-metrics\",state=\"queued\"} 0\n"))
        #expect(during.contains("tilescope_work_queue_jobs_total{queue=\"test-metrics\",result=\"dropped\"} 1\n"))
        gate.open()
        #expect(operations.stopWorkQueues(deadline: 60).isEmpty)
        let after = operations.metrics.render()
        #expect(after.contains("tilescope_work_queue_jobs_total{queue=\"test-metrics\",result=\"done\"} 1\n"), "\(after)")
        #expect(after.contains("# TYPE tilescope_work_queue_jobs_total counter\n"))
    }
}
