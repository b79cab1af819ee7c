import Foundation
import ObjectStore
import Synchronization

/// Whether the object store answers, as last seen, for `/readyz`, which runs on a poll thread and so must never
/// wait for the store. Every call's outcome updates it; when it is older than `interval`, a read starts one probe
/// (a listing of one key) on a thread of its own, at most one at a time, and answers what was seen before.
final class StoreReachability: Sendable {
    private struct State {
        var failure: String?
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
        let now = Self.now()
        state.withLock { state in
            state.failure = failure
            state.seenAt = now
        }
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
    var failure: String? {
        let now = Self.now()
        let (failure, startProbe) = state.withLock { state -> (String?, Bool) in
            let stale = now - state.seenAt > interval && !state.probing
            if stale { state.probing = true }
            return (state.failure, stale)
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
        return failure
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
