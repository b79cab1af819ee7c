import Foundation
import HTTPServer

/// Rating writes per client: a token bucket for each client address (the peer, or the client a trusted
/// proxy names: the same identity as `FairQueue`'s render budget), so one client writing in a loop is
/// refused with 429 after its budget while every other client writes as before.
///
/// The default budget (`Budget.default`): a burst of 10 writes, refilled at 30 a minute. A person rating
/// a gallery judges each deep-zoom image for seconds, so one write every 2 s sustained is more than anyone
/// rates by hand, and 10 at once covers stepping a rating up and down; a script gets 40 writes in its
/// first minute instead of thousands. Viewers behind one address (an office's NAT) share it.
///
/// Memory is bounded: a client idle long enough to have refilled is forgotten when more than
/// `maxClients` are remembered, and if that is not enough the least recently seen go first.
final class RatingWriteLimiter: @unchecked Sendable {  // @unchecked: `buckets` is behind `lock`.
    struct Budget: Sendable {
        var burst: Double
        var perSecond: Double
        static let `default` = Budget(burst: 10, perSecond: 30.0 / 60.0)
    }

    private struct Bucket {
        var tokens: Double
        var at: Double
    }

    let budget: Budget
    let maxClients: Int
    private let lock = NSLock()
    private var buckets: [ClientAddress: Bucket] = [:]

    init(budget: Budget = .default, maxClients: Int = 100_000) {
        self.budget = budget
        self.maxClients = maxClients
    }

    /// Takes one write from `client`'s bucket: nil when it had one, else the whole seconds until it will.
    func admit(_ client: ClientAddress, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        lock.withLock {
            var bucket = buckets[client].map { refilled($0, now) } ?? Bucket(tokens: budget.burst, at: now)
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return max(1, Int(((1 - bucket.tokens) / budget.perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            if buckets.count > maxClients { forgetIdle(now) }
            return nil
        }
    }

    /// Clients remembered now (for tests: memory stays bounded).
    var rememberedClients: Int { lock.withLock { buckets.count } }

    // MARK: - Internals

    private func refilled(_ bucket: Bucket, _ now: Double) -> Bucket {
        Bucket(tokens: min(budget.burst, bucket.tokens + max(0, now - bucket.at) * budget.perSecond), at: now)
    }

    /// Drops every client whose bucket is full again (forgetting it changes nothing), then, if still over
    /// the bound, the least recently seen down to three quarters of it, so sweeps stay rare.
    private func forgetIdle(_ now: Double) {
        buckets = buckets.filter { refilled($0.value, now).tokens < budget.burst }
        guard buckets.count > maxClients * 3 / 4 else { return }
        let keep = buckets.sorted { $0.value.at > $1.value.at }.prefix(maxClients * 3 / 4)
        buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }
}
