import Foundation
import ObjectStore
import Synchronization

/// Whether the object store answers, as last seen, for `/readyz`, which runs on a poll thread and so must never
/// wait for the store. Every call's outcome updates it; when it is older than `interval`, a read starts one probe
/// (a listing of one key) on a thread of its own, at most one at a time, and answers what was seen before.
///
/// `outage` is the narrower fact that no store was there at all (refused, timed out, cut off): cold reads then fail
/// at once (`S3PyramidStore.fetch`) rather than each holding a worker thread through the store's connect timeouts
/// and retries (up to 3 x 12 s against a store that accepts connections and never answers), while the probe, every
/// `interval`, looks for the store's return. An error the store answered (a 5xx of one object, a 403) is no outage.
final class StoreReachability: Sendable {
    private struct State {
        var failure: String?
        var outage: String?
        var seenAt = 0.0
        var probing = false
    }
    private let state = Mutex(State())
    private let interval: Double
    private let probe: @Sendable () throws -> Void

    init(interval: Double = 2, probe: @escaping @Sendable () throws -> Void) {
        self.interval = interval
        self.probe = probe
    }

    /// Records a call's outcome: an error that says the store is unreachable or refusing, or nil for an answer.
    func record(_ error: (any Error)?) {
        let failure = error.flatMap(Self.unreachable)
        let outage = error.flatMap(Self.absent)
        let now = Self.now()
        state.withLock { state in
            state.failure = failure
            state.outage = outage
            state.seenAt = now
        }
    }

    /// What says no store answered at all: a connection refused, timed out or closed before an answer.
    static func absent(_ error: any Error) -> String? {
        guard case .transport(let transport) = error as? S3Error, transport.isRetryable else { return nil }
        return (error as? S3Error)?.description
    }

    /// What makes the store unusable, or nil: a missing key or a lost race is an answer, not a failure.
    static func unreachable(_ error: any Error) -> String? {
        guard let error = error as? S3Error else { return nil }
        switch error {
        case .service(let status, _, _, _) where status == 404 || status == 412: return nil
        default: return error.description
        }
    }

    /// Nil while the store answers, else why not.
    var failure: String? { observed().failure }

    /// Nil unless the last call or probe found no store there at all; then the error to answer with at once.
    var outage: S3Error? {
        observed().outage.map { .transport(.connectFailed("\($0); not asked again until a probe finds it")) }
    }

    /// The state as last seen, starting a probe when it is older than `interval`.
    private func observed() -> State {
        let now = Self.now()
        let (seen, startProbe) = state.withLock { state -> (State, Bool) in
            let stale = now - state.seenAt > interval && !state.probing
            if stale { state.probing = true }
            return (state, stale)
        }
        if startProbe {
            let thread = Thread { [self] in
                var error: (any Error)?
                do { try probe() } catch let failed { error = failed }
                record(error)
                state.withLock { $0.probing = false }
            }
            thread.name = "store-probe"
            thread.start()
        }
        return seen
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
