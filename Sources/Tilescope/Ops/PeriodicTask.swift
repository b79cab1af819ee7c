import Foundation

/// Runs `work` every `interval` seconds on a thread of its own until `stop()`, which wakes the
/// thread, waits for the run in progress (if any) and returns once the thread has ended: what a
/// service starts, its stop ends.
final class PeriodicTask: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopping = false
    private var ended = false

    /// `runsAtOnce`: a first run as the thread starts, rather than after the first interval.
    init(name: String, interval: Double, runsAtOnce: Bool = false, _ work: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            if runsAtOnce { work() }
            condition.lock()
            while !stopping {
                // A timed wait, not a sleep: a stop wakes it at once.
                _ = condition.wait(until: Date().addingTimeInterval(interval))
                guard !stopping else { break }
                condition.unlock()
                work()
                condition.lock()
            }
            ended = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Ends the thread and waits for it.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
    }
}
