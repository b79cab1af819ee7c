/// Costly work (pixels to decode and encode) waiting for a thread, kept per client so that no client's work waits
/// behind another's pile. Pure bookkeeping, with the time passed in: `CostlyWorkers` runs it under a lock with
/// threads; `FairQueueTests` drives it with random arrivals and costs.
///
/// - **Budgets.** Each client (an address, or whatever key the handler gives) has a token bucket of pixels:
///   `pixelsPerSecond` refill it up to `burstPixels`. A request is *within budget* when its client's bucket is
///   above zero as it arrives; its estimated cost is then taken from the bucket (so a client's debt is at most one
///   request's cost, and so is the wait `Retry-After` tells it). Over-budget work is not charged (it uses capacity
///   nobody within a budget wanted), and a refused, evicted or expired request gives its cost back: only
///   within-budget work that ran is paid for.
/// - **Two tiers.** Within-budget work runs on the normal threads; over-budget work only on the spare threads,
///   which run at a lower OS priority, so a client over its budget still gets the capacity nobody else wants
///   (no core left idle) but never keeps a normal thread from a client within its budget. A spare thread with
///   no over-budget work takes within-budget work too.
/// - **Fair order.** Within a tier, the next job is the head of the client whose work has had the least cost
///   dispatched so far (start-time fair queuing: a client that comes back after a pause starts level with the
///   tier's clock, not with credit for its idle time). On the normal threads one client runs at most
///   `normalPerClient` jobs at once (half of them), so a client arriving while another has work waiting finds a
///   normal thread free, not all of them busy with the other's renders, which cannot be preempted.
/// - **Bounded.** At most `capacity` jobs wait. When full, the worst waiting job (over budget first, then the most
///   over-budget client, then the most expensive) is refused to make room, unless the newcomer is worse still.
///   A client has at most `overBudgetWaitingPerClient` over-budget jobs waiting; beyond that it is refused at once.
///   A job that has waited `maxWaitSeconds` is refused rather than run for a client who has likely left.
public struct FairQueue<Job> {
    public enum Tier: Int, Sendable, CaseIterable {
        case withinBudget, overBudget
    }

    /// Which threads ask for work: the normal ones take within-budget work only.
    public enum ThreadKind: Sendable {
        case normal, spare
    }

    public typealias Refusal = CostlyRefusal

    public struct Entry {
        public let job: Job
        public let client: ClientAddress
        public let cost: Int
        public let tier: Tier
        /// When it was admitted (seconds, the caller's clock).
        public let arrival: Double
        let sequence: Int
    }

    /// What became of a request offered to `admit`, and of the waiting jobs refused to make room for it.
    public struct Admission {
        /// Nil: it waits for a thread.
        public var refusal: Refusal?
        public var evicted: [(entry: Entry, refusal: Refusal)] = []
    }

    public let limits: FairQueueLimits

    private struct Bucket {
        var tokens: Double
        var refilled: Double
    }

    private struct LaneKey: Hashable {
        var client: ClientAddress
        var tier: Tier
    }

    /// One client's waiting work in one tier, in arrival order.
    private struct Lane {
        var waiting: [Entry] = []
        var head = 0
        /// The fair-queuing clock: cost dispatched so far, from where the tier's clock stood when it started.
        var served: Double
        var runningOnNormal = 0
        var running = 0

        var count: Int { waiting.count - head }
        var first: Entry? { head < waiting.count ? waiting[head] : nil }

        mutating func popFirst() -> Entry {
            let entry = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return entry
        }
    }

    private var buckets: [ClientAddress: Bucket] = [:]
    private var lanes: [LaneKey: Lane] = [:]
    /// Each tier's fair-queuing clock: the start of the job dispatched last.
    private var clock: [Double] = Array(repeating: 0, count: Tier.allCases.count)
    private var sequence = 0
    /// Buckets are swept for idle clients once there are more than this (`forgetIdleClients`).
    private var forgetAbove: Int
    public private(set) var counts = FairQueueCounts()

    public init(limits: FairQueueLimits) {
        self.limits = limits
        forgetAbove = limits.clientsRemembered
    }

    /// Clients whose buckets are kept (for tests: idle ones are forgotten once there are many).
    var rememberedClients: Int { buckets.count }

    /// Jobs waiting in `tier`.
    public func waiting(_ tier: Tier) -> Int { counts.waiting[tier.rawValue] }

    /// The client's bucket now, in pixels (the burst for a client not seen lately).
    public func tokens(of client: ClientAddress, now: Double) -> Double {
        guard let bucket = buckets[client] else { return limits.burstPixels }
        return refilled(bucket, now: now).tokens
    }

    /// Offers a job costing `cost` pixels: queued, or refused (and maybe others refused to make room).
    public mutating func admit(_ job: Job, client: ClientAddress, cost: Int, now: Double) -> Admission {
        let cost = max(0, cost)
        var bucket = refilled(buckets[client] ?? Bucket(tokens: limits.burstPixels, refilled: now), now: now)
        let tier: Tier = bucket.tokens > 0 ? .withinBudget : .overBudget
        if tier == .overBudget,
           (lanes[LaneKey(client: client, tier: .overBudget)]?.count ?? 0) >= limits.overBudgetWaitingPerClient {
            buckets[client] = bucket
            counts.refused[Tier.overBudget.rawValue] += 1
            return Admission(refusal: .overBudget(retryAfter: retryAfter(bucket)))
        }
        var admission = Admission()
        if counts.totalWaiting >= limits.capacity {
            let newcomer = Badness(tier: tier, tokens: bucket.tokens, cost: cost)
            guard let worst = worstWaiting(), badness(of: worst) > newcomer else {
                buckets[client] = bucket
                counts.refused[tier.rawValue] += 1
                let refusal: Refusal = tier == .overBudget ? .overBudget(retryAfter: retryAfter(bucket)) : .full(retryAfter: 1)
                return Admission(refusal: refusal)
            }
            let evicted = remove(worst)
            let refusal: Refusal = evicted.tier == .overBudget
                ? .overBudget(retryAfter: retryAfter(buckets[evicted.client] ?? bucket)) : .full(retryAfter: 1)
            counts.refused[evicted.tier.rawValue] += 1
            admission.evicted.append((evicted, refusal))
            if evicted.client == client { bucket = refilled(buckets[client] ?? bucket, now: now) }
        }
        // Over-budget work is not charged: it runs on capacity nobody within a budget wanted, and charging it
        // would keep a client that used idle capacity over its budget long after others came back.
        if tier == .withinBudget { bucket.tokens -= Double(cost) }
        buckets[client] = bucket
        sequence += 1
        let key = LaneKey(client: client, tier: tier)
        var lane = lanes[key] ?? Lane(served: clock[tier.rawValue])
        lane.waiting.append(Entry(job: job, client: client, cost: cost, tier: tier, arrival: now, sequence: sequence))
        lanes[key] = lane
        counts.waiting[tier.rawValue] += 1
        counts.admitted[tier.rawValue] += 1
        forgetIdleClients(now: now)
        return admission
    }

    /// Whether a job may run at once on the thread that received it, without a hand-off: nothing waits or runs,
    /// and the client is within its budget (its cost is then taken from the bucket).
    public mutating func mayRunInline(client: ClientAddress, cost: Int, now: Double) -> Bool {
        guard counts.totalWaiting == 0, counts.totalRunning == 0 else { return false }
        var bucket = refilled(buckets[client] ?? Bucket(tokens: limits.burstPixels, refilled: now), now: now)
        guard bucket.tokens > 0 else { return false }
        bucket.tokens -= Double(max(0, cost))
        buckets[client] = bucket
        counts.admitted[Tier.withinBudget.rawValue] += 1
        return true
    }

    /// The next job for a thread of `kind`, marked running (call `finished` after it), or nil when none may run
    /// on it now.
    ///
    /// `normalThreadsIdle`: whether a normal thread is waiting for work. A spare thread then leaves within-budget
    /// work to it, and takes only the work of clients at their share of normal threads: spare threads are for
    /// over-budget work first, and one that took within-budget work a normal thread could have run would be
    /// busy when over-budget work comes.
    public mutating func next(for kind: ThreadKind, normalThreadsIdle: Bool = false) -> Entry? {
        let tiers: [Tier] = kind == .normal ? [.withinBudget] : [.overBudget, .withinBudget]
        for tier in tiers {
            guard counts.waiting[tier.rawValue] > 0 else { continue }
            var best: (key: LaneKey, start: Double, sequence: Int)?
            for (key, lane) in lanes where key.tier == tier {
                guard let first = lane.first else { continue }
                let atShare = lane.runningOnNormal >= limits.normalPerClient
                if kind == .normal && atShare { continue }
                if kind == .spare && tier == .withinBudget && normalThreadsIdle && !atShare { continue }
                let start = max(lane.served, clock[tier.rawValue])
                if best == nil || start < best!.start || (start == best!.start && first.sequence < best!.sequence) {
                    best = (key, start, first.sequence)
                }
            }
            guard let best, var lane = lanes[best.key] else { continue }
            let entry = lane.popFirst()
            clock[tier.rawValue] = best.start
            lane.served = best.start + Double(entry.cost)
            lane.running += 1
            if kind == .normal { lane.runningOnNormal += 1 }
            lanes[best.key] = lane
            counts.waiting[tier.rawValue] -= 1
            counts.running[tier.rawValue] += 1
            return entry
        }
        return nil
    }

    /// Marks a job taken by `next(for: kind)` as done.
    public mutating func finished(_ entry: Entry, on kind: ThreadKind) {
        let key = LaneKey(client: entry.client, tier: entry.tier)
        counts.running[entry.tier.rawValue] -= 1
        counts.done[entry.tier.rawValue] += 1
        guard var lane = lanes[key] else { return }
        lane.running -= 1
        if kind == .normal { lane.runningOnNormal -= 1 }
        lanes[key] = lane.count == 0 && lane.running == 0 ? nil : lane
    }

    /// Removes and returns the jobs that have waited more than `maxWaitSeconds` (their cost given back).
    public mutating func expired(now: Double) -> [(entry: Entry, refusal: Refusal)] {
        var out: [(entry: Entry, refusal: Refusal)] = []
        guard counts.totalWaiting > 0 else { return out }
        for key in Array(lanes.keys) {
            while let first = lanes[key]?.first, now - first.arrival > limits.maxWaitSeconds {
                var lane = lanes[key]!
                _ = lane.popFirst()
                lanes[key] = lane.count == 0 && lane.running == 0 ? nil : lane
                counts.waiting[first.tier.rawValue] -= 1
                counts.refused[first.tier.rawValue] += 1
                counts.expired += 1
                refund(first)
                out.append((first, .waitedTooLong(retryAfter: 1)))
            }
        }
        return out
    }

    // MARK: - Budgets

    private func refilled(_ bucket: Bucket, now: Double) -> Bucket {
        let elapsed = max(0, now - bucket.refilled)
        return Bucket(tokens: min(limits.burstPixels, bucket.tokens + elapsed * limits.pixelsPerSecond), refilled: now)
    }

    /// Seconds until the bucket is above zero again, at least 1 (the header counts whole seconds).
    private func retryAfter(_ bucket: Bucket) -> Int {
        guard bucket.tokens <= 0, limits.pixelsPerSecond > 0 else { return 1 }
        let seconds = (-bucket.tokens + 1) / limits.pixelsPerSecond
        return Int(min(3600, max(1, seconds.rounded(.up))))
    }

    private mutating func refund(_ entry: Entry) {
        guard entry.tier == .withinBudget, var bucket = buckets[entry.client] else { return }
        bucket.tokens = min(limits.burstPixels, bucket.tokens + Double(entry.cost))
        buckets[entry.client] = bucket
    }

    /// Buckets of clients with nothing waiting or running and a full bucket say nothing a new bucket would not:
    /// they go once there are many, so a stream of new addresses cannot grow the table without end.
    private mutating func forgetIdleClients(now: Double) {
        guard buckets.count > forgetAbove else { return }
        let busy = Set(lanes.keys.map(\.client))
        buckets = buckets.filter { client, bucket in
            busy.contains(client) || refilled(bucket, now: now).tokens < limits.burstPixels
        }
        // If most are still spending, the next sweep waits until the table has doubled: a sweep per request
        // would cost a pass over every client each time.
        forgetAbove = max(limits.clientsRemembered, 2 * buckets.count)
    }

    // MARK: - Making room

    /// Orders waiting jobs by which to refuse first: over budget before within, then the client deepest in
    /// debt, then the costliest.
    private struct Badness: Comparable {
        var tier: Tier
        var tokens: Double
        var cost: Int

        static func < (a: Badness, b: Badness) -> Bool {
            if a.tier != b.tier { return a.tier.rawValue < b.tier.rawValue }
            if a.tokens != b.tokens { return a.tokens > b.tokens }
            return a.cost < b.cost
        }
    }

    private func badness(of entry: Entry) -> Badness {
        Badness(tier: entry.tier, tokens: buckets[entry.client]?.tokens ?? limits.burstPixels, cost: entry.cost)
    }

    private func worstWaiting() -> Entry? {
        var worst: Entry?
        for lane in lanes.values {
            for entry in lane.waiting[lane.head...] where worst == nil || badness(of: entry) > badness(of: worst!) {
                worst = entry
            }
        }
        return worst
    }

    private mutating func remove(_ entry: Entry) -> Entry {
        let key = LaneKey(client: entry.client, tier: entry.tier)
        guard var lane = lanes[key], let index = lane.waiting[lane.head...].firstIndex(where: { $0.sequence == entry.sequence })
        else { return entry }
        lane.waiting.remove(at: index)
        lanes[key] = lane.count == 0 && lane.running == 0 ? nil : lane
        counts.waiting[entry.tier.rawValue] -= 1
        counts.evicted += 1
        refund(entry)
        return entry
    }
}

/// How much costly work each client may ask for, and how much may wait.
public struct FairQueueLimits: Sendable, Equatable {
    /// A client's budget: pixels (decoded plus encoded) per second, refilled continuously.
    public var pixelsPerSecond: Double
    /// How many pixels a client may spend at once after a pause.
    public var burstPixels: Double
    /// Jobs waiting in all, both tiers.
    public var capacity: Int
    /// Over-budget jobs one client may have waiting; beyond, it is refused at once with 429.
    public var overBudgetWaitingPerClient: Int
    /// Normal threads one client may hold at once.
    public var normalPerClient: Int
    /// A job waiting longer than this is refused (503) rather than run.
    public var maxWaitSeconds: Double
    /// Idle clients' buckets are forgotten once more than this many are kept.
    public var clientsRemembered: Int

    public init(pixelsPerSecond: Double, burstPixels: Double, capacity: Int, overBudgetWaitingPerClient: Int,
                normalPerClient: Int, maxWaitSeconds: Double, clientsRemembered: Int = 4096) {
        self.pixelsPerSecond = max(0, pixelsPerSecond)
        self.burstPixels = max(1, burstPixels)
        self.capacity = max(1, capacity)
        self.overBudgetWaitingPerClient = max(1, overBudgetWaitingPerClient)
        self.normalPerClient = max(1, normalPerClient)
        self.maxWaitSeconds = max(0, maxWaitSeconds)
        self.clientsRemembered = max(1, clientsRemembered)
    }
}

/// What a `FairQueue` has done, per tier (index: `Tier.rawValue`), for metrics.
public struct FairQueueCounts: Sendable, Equatable {
    public var waiting = [0, 0]
    public var running = [0, 0]
    public var admitted = [0, 0]
    public var done = [0, 0]
    /// Refused in all: at the door, evicted to make room, or expired.
    public var refused = [0, 0]
    public var evicted = 0
    public var expired = 0

    public init() {}

    var totalWaiting: Int { waiting[0] + waiting[1] }
    var totalRunning: Int { running[0] + running[1] }
}

/// Why a request was not run: the server answers 429 or 503 with `Retry-After`.
public enum CostlyRefusal: Sendable, Equatable {
    /// The client's budget is spent and it already has work waiting beyond it (429).
    case overBudget(retryAfter: Int)
    /// The queue is full of work no worse than this (503).
    case full(retryAfter: Int)
    /// It waited `maxWaitSeconds` for a thread (503).
    case waitedTooLong(retryAfter: Int)

    public var retryAfter: Int {
        switch self {
        case .overBudget(let seconds), .full(let seconds), .waitedTooLong(let seconds): return seconds
        }
    }
}
