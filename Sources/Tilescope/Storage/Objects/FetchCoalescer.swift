import Foundation
import Synchronization

/// One fetch per key at a time: the first caller runs it, callers arriving meanwhile wait for its outcome and
/// share it (the file it placed, or its error). So a cold tile asked for by many clients at once costs the
/// store one GET per replica. Waiters hold their worker thread while they wait; the fetch they wait for is
/// already running on another, so they cannot wait for one another. `Value`: what a fetch gives (whether it placed
/// the file; a version's pack index).
final class FetchCoalescer<Value: Sendable>: Sendable {
    private final class Flight: @unchecked Sendable {  // `outcome` is guarded by `condition`
        let condition = NSCondition()
        var outcome: Result<Value, any Error>?
    }
    private let flights = Mutex<[String: Flight]>([:])

    /// `work`'s outcome for `key`, run here or by the caller already running it.
    func run(_ key: String, _ work: () throws -> Value) throws -> Value {
        let (flight, leads) = flights.withLock { flights -> (Flight, Bool) in
            if let running = flights[key] { return (running, false) }
            let flight = Flight()
            flights[key] = flight
            return (flight, true)
        }
        if leads {
            let outcome = Result { try work() }
            flights.withLock { $0[key] = nil }
            flight.condition.lock()
            flight.outcome = outcome
            flight.condition.broadcast()
            flight.condition.unlock()
            return try outcome.get()
        }
        flight.condition.lock()
        while flight.outcome == nil { flight.condition.wait() }
        let outcome = flight.outcome!
        flight.condition.unlock()
        return try outcome.get()
    }
}
