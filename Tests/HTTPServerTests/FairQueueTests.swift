import SeededRandom
import Testing
@testable import HTTPServer

/// The fair queue's rules one by one, then driven with random arrivals, costs and threads against its invariants.
@Suite struct FairQueueTests {
    typealias Queue = FairQueue<Int>
    static let a = ClientAddress("192.0.2.1"), b = ClientAddress("192.0.2.2"), c = ClientAddress("192.0.2.3")

    static func limits(rate: Double = 1000, burst: Double = 1000, capacity: Int = 100, overBudgetWaiting: Int = 2,
                       normalPerClient: Int = 1, maxWait: Double = 30) -> FairQueueLimits {
        FairQueueLimits(pixelsPerSecond: rate, burstPixels: burst, capacity: capacity,
                        overBudgetWaitingPerClient: overBudgetWaiting, normalPerClient: normalPerClient,
                        maxWaitSeconds: maxWait)
    }

    @Test func aClientWithinItsBudgetRunsOnNormalThreadsAndOverItOnlyOnSpareOnes() {
        var queue = Queue(limits: Self.limits())
        #expect(queue.admit(1, client: Self.a, cost: 600, now: 0).refusal == nil)
        #expect(queue.admit(2, client: Self.a, cost: 600, now: 0).refusal == nil)  // 400 left: still within
        #expect(queue.admit(3, client: Self.a, cost: 600, now: 0).refusal == nil)  // -200: over
        #expect(queue.waiting(.withinBudget) == 2 && queue.waiting(.overBudget) == 1)
        let first = queue.next(for: .normal)
        #expect(first?.job == 1)
        // One normal thread per client (normalPerClient 1): the second waits for a spare thread or the first's end.
        #expect(queue.next(for: .normal) == nil)
        #expect(queue.next(for: .spare)?.job == 3, "a spare thread takes over-budget work first")
        #expect(queue.next(for: .spare)?.job == 2, "and within-budget work when no over-budget work waits")
        queue.finished(first!, on: .normal)
        #expect(queue.counts.running == [1, 1])
    }

    @Test func overBudgetWorkBeyondItsShareIsRefusedAtOnceWithTheTimeItsBucketNeeds() {
        var queue = Queue(limits: Self.limits(rate: 1000, burst: 1000, overBudgetWaiting: 2))
        _ = queue.admit(0, client: Self.a, cost: 2500, now: 0)  // within (the bucket was full): tokens -1500
        #expect(queue.admit(1, client: Self.a, cost: 1500, now: 0).refusal == nil)  // over, waiting 1, not charged
        #expect(queue.admit(2, client: Self.a, cost: 100, now: 0).refusal == nil)  // over, waiting 2
        let refused = queue.admit(3, client: Self.a, cost: 100, now: 0).refusal
        // Tokens at -1500: a second and a half of refill, and a pixel more, to be above zero: 2 whole seconds.
        #expect(refused == .overBudget(retryAfter: 2))
        #expect(queue.tokens(of: Self.a, now: 0) == -1500)
        // Another client is untouched by a's debt.
        #expect(queue.admit(4, client: Self.b, cost: 100, now: 0).refusal == nil)
        #expect(queue.waiting(.withinBudget) == 2)
    }

    @Test func theBucketRefillsWithTimeUpToTheBurst() {
        var queue = Queue(limits: Self.limits(rate: 1000, burst: 1000))
        _ = queue.admit(0, client: Self.a, cost: 1000, now: 0)
        #expect(queue.tokens(of: Self.a, now: 0) == 0)
        #expect(queue.tokens(of: Self.a, now: 0.5) == 500)
        #expect(queue.tokens(of: Self.a, now: 100) == 1000)
        #expect(queue.tokens(of: Self.c, now: 0) == 1000, "a client never seen has the burst")
    }

    @Test func whenFullTheWorstWaitingJobMakesRoomNotTheNewest() {
        var queue = Queue(limits: Self.limits(rate: 1, burst: 1000, capacity: 3, overBudgetWaiting: 5))
        _ = queue.admit(1, client: Self.a, cost: 2000, now: 0)  // within (a's bucket was full), a now deep in debt
        _ = queue.admit(2, client: Self.a, cost: 50, now: 0)  // over budget
        _ = queue.admit(3, client: Self.b, cost: 10, now: 0)  // within
        // Full. b's next, within budget, displaces a's over-budget job.
        let admission = queue.admit(4, client: Self.b, cost: 10, now: 0)
        #expect(admission.refusal == nil)
        #expect(admission.evicted.map(\.entry.job) == [2])
        #expect(admission.evicted.first.map { if case .overBudget = $0.refusal { true } else { false } } == true)
        // Full of within-budget work now: a newcomer over budget is refused, nothing evicted.
        let late = queue.admit(5, client: Self.a, cost: 10, now: 0)
        #expect(late.refusal != nil && late.evicted.isEmpty)
        // All within budget now: the job of the client deepest in debt (a, at -1000) makes room for c's.
        let third = queue.admit(6, client: Self.c, cost: 10, now: 0)
        #expect(third.refusal == nil)
        #expect(third.evicted.map(\.entry.job) == [1])
        #expect(third.evicted.first?.refusal == .full(retryAfter: 1))
    }

    @Test func aJobThatWaitedTooLongIsRefusedAndItsCostGivenBack() {
        var queue = Queue(limits: Self.limits(rate: 0, burst: 1000, maxWait: 5))
        _ = queue.admit(1, client: Self.a, cost: 400, now: 0)
        #expect(queue.tokens(of: Self.a, now: 1) == 600)
        #expect(queue.expired(now: 4).isEmpty)
        let expired = queue.expired(now: 6)
        #expect(expired.map(\.entry.job) == [1])
        #expect(expired.first?.refusal == .waitedTooLong(retryAfter: 1))
        #expect(queue.tokens(of: Self.a, now: 6) == 1000)
        #expect(queue.next(for: .spare) == nil)
    }

    @Test func twoBackloggedClientsShareByCostNotByArrival() {
        var queue = Queue(limits: Self.limits(rate: 1e12, burst: 1e12, capacity: 1000))
        // a queues 20 jobs of 100 before b's 20 jobs of 10 arrive: b is not served after all of a's.
        for index in 0..<20 { _ = queue.admit(index, client: Self.a, cost: 100, now: 0) }
        for index in 100..<120 { _ = queue.admit(index, client: Self.b, cost: 10, now: 0) }
        var order: [Int] = []
        while let entry = queue.next(for: .spare) {
            order.append(entry.job)
            queue.finished(entry, on: .spare)
        }
        // By the time a has had two jobs (200 pixels), b has had all twenty of its own (200 pixels).
        let bDone = order.firstIndex(of: 119)!, aThird = order.firstIndex(of: 2)!
        #expect(bDone < aThird, "\(order)")
    }

    @Test func aClientThatPausedDoesNotBankCreditForItsIdleTime() {
        var queue = Queue(limits: Self.limits(rate: 1e12, burst: 1e12, capacity: 1000))
        for index in 0..<10 { _ = queue.admit(index, client: Self.a, cost: 100, now: 0) }
        for _ in 0..<10 {
            let entry = queue.next(for: .spare)!
            queue.finished(entry, on: .spare)
        }
        // b arrives late; a keeps asking. They alternate from now on rather than b taking 10 in a row.
        for index in 0..<10 { _ = queue.admit(100 + index, client: Self.b, cost: 100, now: 1) }
        for index in 0..<10 { _ = queue.admit(200 + index, client: Self.a, cost: 100, now: 1) }
        var order: [Int] = []
        for _ in 0..<6 {
            let entry = queue.next(for: .spare)!
            order.append(entry.job)
            queue.finished(entry, on: .spare)
        }
        #expect(order.filter { $0 >= 200 }.count >= 2, "\(order)")
    }

    @Test func idleClientsAreForgottenOnceThereAreMany() {
        var queue = Queue(limits: FairQueueLimits(pixelsPerSecond: 1000, burstPixels: 1000, capacity: 10_000,
                                                  overBudgetWaitingPerClient: 1, normalPerClient: 1, maxWaitSeconds: 30,
                                                  clientsRemembered: 100))
        // 300 clients each spend a little once: all of them are still refilling, so sweeps forget none, and the
        // next sweep waits until the table has doubled (no pass over every client per request).
        func spend(_ index: Int, at now: Double) {
            let admission = queue.admit(index, client: ClientAddress("10.0.\(index / 256).\(index % 256)"), cost: 10, now: now)
            #expect(admission.refusal == nil)
            if let entry = queue.next(for: .spare) { queue.finished(entry, on: .spare) }
        }
        for index in 0..<300 { spend(index, at: 0) }
        #expect(queue.rememberedClients == 300)
        // Seconds later their buckets are full again: the next sweep forgets them, not the clients spending now.
        for index in 300..<500 { spend(index, at: 5) }
        #expect(queue.rememberedClients == 200, "only the clients spending now: \(queue.rememberedClients)")
        #expect(queue.tokens(of: ClientAddress("10.0.1.243"), now: 5) < 1000, "a client spending now is remembered")
    }

    /// Random arrivals, costs and thread events; after every step the invariants hold, and once arrivals stop,
    /// every admitted job has run or been refused exactly once (none waits forever).
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomTrafficKeepsTheInvariants(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let normalThreads = Int.random(in: 1...3, using: &random), spareThreads = Int.random(in: 1...3, using: &random)
        let limits = FairQueueLimits(
            pixelsPerSecond: Double.random(in: 100...10_000, using: &random), burstPixels: Double.random(in: 500...20_000, using: &random),
            capacity: Int.random(in: 1...40, using: &random), overBudgetWaitingPerClient: Int.random(in: 1...4, using: &random),
            normalPerClient: max(1, normalThreads / 2), maxWaitSeconds: Double.random(in: 0.5...5, using: &random))
        var queue = Queue(limits: limits)
        let clients = (0..<Int.random(in: 1...6, using: &random)).map { ClientAddress("198.51.100.\($0)") }
        var running: [(entry: Queue.Entry, kind: Queue.ThreadKind, ends: Double)] = []
        var outcome: [Int: String] = [:]  // job -> "ran" | "refused"
        var admittedJobs = Set<Int>()
        var withinBudgetCost: [ClientAddress: Double] = [:]
        var now = 0.0, job = 0

        func settle(_ entries: [(entry: Queue.Entry, refusal: CostlyRefusal)]) {
            for (entry, _) in entries {
                #expect(outcome[entry.job] == nil, "job \(entry.job) settled twice")
                outcome[entry.job] = "refused"
            }
        }
        func fillThreads() {
            for kind in [Queue.ThreadKind.normal, .spare] {
                let count = kind == .normal ? normalThreads : spareThreads
                while running.filter({ $0.kind == kind }).count < count, let entry = queue.next(for: kind) {
                    #expect(kind == .spare || entry.tier == .withinBudget, "over-budget work on a normal thread")
                    #expect(outcome[entry.job] == nil)
                    outcome[entry.job] = "ran"
                    if entry.tier == .withinBudget { withinBudgetCost[entry.client, default: 0] += Double(entry.cost) }
                    running.append((entry, kind, now + Double.random(in: 0.001...0.3, using: &random)))
                }
            }
            // A normal thread left idle means no within-budget job it may take is waiting.
            if running.filter({ $0.kind == .normal }).count < normalThreads {
                var probe = queue
                #expect(probe.next(for: .normal) == nil, "within-budget work waits while a normal thread is idle")
            }
        }

        for _ in 0..<600 {
            now += Double.random(in: 0...0.05, using: &random)
            settle(queue.expired(now: now))
            // Threads finish what is due.
            running.removeAll { item in
                guard item.ends <= now else { return false }
                queue.finished(item.entry, on: item.kind)
                return true
            }
            if Bool.random(using: &random) {
                let client = clients.randomElement(using: &random)!
                let cost = random.logUniformInt(1...20_000)
                job += 1
                let admission = queue.admit(job, client: client, cost: cost, now: now)
                settle(admission.evicted)
                if let refusal = admission.refusal {
                    outcome[job] = "refused"
                    #expect(refusal.retryAfter >= 1 && refusal.retryAfter <= 3600)
                } else {
                    admittedJobs.insert(job)
                }
            }
            fillThreads()
            let counts = queue.counts
            #expect(counts.waiting[0] + counts.waiting[1] <= limits.capacity)
            #expect(counts.running[0] + counts.running[1] == running.count)
        }
        // Arrivals stop: everything drains.
        var rounds = 0
        while !(running.isEmpty && queue.counts.waiting == [0, 0]) && rounds < 10_000 {
            rounds += 1
            now += 0.05
            settle(queue.expired(now: now))
            running.removeAll { item in
                guard item.ends <= now else { return false }
                queue.finished(item.entry, on: item.kind)
                return true
            }
            fillThreads()
        }
        #expect(running.isEmpty && queue.counts.waiting == [0, 0], "work left waiting forever")
        for admitted in admittedJobs { #expect(outcome[admitted] != nil, "job \(admitted) never ran nor was refused") }
        // The within-budget work a client ran is bounded by its burst and its refill, plus one job's overdraft.
        for (_, cost) in withinBudgetCost {
            #expect(cost <= limits.burstPixels + limits.pixelsPerSecond * now + 20_000)
        }
    }
}
