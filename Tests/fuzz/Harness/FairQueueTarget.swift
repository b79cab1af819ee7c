import HTTPServer
@testable import Tilescope

/// The costly-work scheduler's two inputs from the network.
///
/// `forwarded-for`: the first line is a `--trusted-proxies` list, the second the peer's address, the rest an
/// `X-Forwarded-For` header. No trap; a list that parses gives a client that is the peer, or an address that
/// parses and appears in the header; a peer the list does not trust is always its own client.
///
/// `fair-queue`: the bytes are a script of arrivals (client, cost, time step) and threads asking for or
/// finishing work, against limits also taken from the input. After every step: nothing waits beyond the
/// queue's capacity, no count is negative, a normal thread never gets over-budget work, and a refusal's
/// `Retry-After` is 1 to 3600 s. At the end, every job is settled once arrivals stop.
enum FairQueueTarget {
    static func runForwardedFor(_ bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3, let proxies = try? TrustedProxies(parsing: String(lines[0])),
              let peer = ClientAddress(parsing: lines[1]) else { return }
        var request = Request(method: "GET", rawPath: "/", headers: ["x-forwarded-for": String(lines[2])])
        request.client = peer
        let client = proxies.client(of: request)
        if !proxies.trusts(peer) { FuzzCheck.require(client == peer, "an untrusted peer named another client") }
        if client != peer {
            let named = lines[2].split(separator: ",").compactMap { ClientAddress(parsing: Substring($0.trimmingCharacters(in: .whitespaces))) }
            FuzzCheck.require(named.contains(client), "a client not in the header: \(client.text)")
        }
    }

    static func runQueue(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return }
        var input = bytes.makeIterator()
        func next() -> Int { Int(input.next() ?? 0) }
        let normalThreads = 1 + next() % 3, spareThreads = 1 + next() % 3
        let limits = FairQueueLimits(pixelsPerSecond: Double(next() * 100), burstPixels: Double(1 + next() * 100),
                                     capacity: 1 + next() % 16, overBudgetWaitingPerClient: 1 + next() % 3,
                                     normalPerClient: max(1, normalThreads / 2), maxWaitSeconds: Double(next() % 8))
        var queue = FairQueue<Int>(limits: limits)
        var running: [(entry: FairQueue<Int>.Entry, kind: FairQueue<Int>.ThreadKind)] = []
        var settled = Set<Int>(), admitted = Set<Int>()
        var now = 0.0, job = 0
        func settle(_ refused: [(entry: FairQueue<Int>.Entry, refusal: CostlyRefusal)]) {
            for (entry, refusal) in refused {
                FuzzCheck.require(settled.insert(entry.job).inserted, "job \(entry.job) settled twice")
                FuzzCheck.require((1...3600).contains(refusal.retryAfter), "Retry-After \(refusal.retryAfter)")
            }
        }
        func take(_ kind: FairQueue<Int>.ThreadKind) {
            let busy = running.filter { $0.kind == kind }.count
            guard busy < (kind == .normal ? normalThreads : spareThreads), let entry = queue.next(for: kind) else { return }
            FuzzCheck.require(kind == .spare || entry.tier == .withinBudget, "over-budget work on a normal thread")
            FuzzCheck.require(settled.insert(entry.job).inserted, "job \(entry.job) ran after being settled")
            running.append((entry, kind))
        }
        while let op = input.next() {
            now += Double(op >> 4) * 0.01
            settle(queue.expired(now: now))
            switch op % 4 {
            case 0, 1:
                job += 1
                let client = ClientAddress("c\(next() % 4)")
                let admission = queue.admit(job, client: client, cost: next() * next() * 10, now: now)
                settle(admission.evicted)
                if let refusal = admission.refusal {
                    FuzzCheck.require((1...3600).contains(refusal.retryAfter), "Retry-After \(refusal.retryAfter)")
                    settled.insert(job)
                } else {
                    admitted.insert(job)
                }
            case 2:
                take(op & 8 == 0 ? .normal : .spare)
            default:
                if !running.isEmpty {
                    let item = running.remove(at: next() % running.count)
                    queue.finished(item.entry, on: item.kind)
                }
            }
            let counts = queue.counts
            FuzzCheck.require(counts.waiting[0] + counts.waiting[1] <= limits.capacity, "over capacity")
            FuzzCheck.require((counts.waiting + counts.running).allSatisfy { $0 >= 0 }, "a negative count")
            FuzzCheck.require(counts.running[0] + counts.running[1] == running.count, "running miscounted")
        }
        // Arrivals stop: every thread finishes and takes work until none is left.
        var rounds = 0
        while !(running.isEmpty && queue.counts.waiting == [0, 0]) && rounds < 10_000 {
            rounds += 1
            now += 0.5
            settle(queue.expired(now: now))
            for item in running { queue.finished(item.entry, on: item.kind) }
            running.removeAll()
            take(.normal)
            take(.spare)
        }
        FuzzCheck.require(queue.counts.waiting == [0, 0], "work left waiting forever")
        for job in admitted { FuzzCheck.require(settled.contains(job), "job \(job) never ran nor was refused") }
    }
}
