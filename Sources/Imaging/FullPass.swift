import CShims
import Foundation

/// The full pass of a progressive build (one dzsave over the whole image) on a thread of its own,
/// so that a JPEG's preview is decoded beside it rather than before it.
///
/// dzsave keeps about 1.3 of 2 cores busy on average (its JPEG decode is sequential), and the
/// preview's 1/8-scale decode is a second, independent read of the source: side by side they
/// cost the build the full pass's wall time instead of both added up (docs/benchmarks.md, run H).
final class FullPass: @unchecked Sendable {
    private let condition = NSCondition()
    /// Set once, when the pass ends.
    private var outcome: Result<Void, any Error>?

    /// Starts `work` at once. `niceIncrement` > 0 lowers the thread's scheduling priority before
    /// the work starts: Linux threads inherit it, so the libvips workers it starts run at it too
    /// (idle workers that libvips's thread set hands back keep the priority they were made with).
    init(niceIncrement: Int, _ work: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            if niceIncrement > 0 { _ = ts_lower_thread_priority(Int32(min(niceIncrement, 19))) }
            let result = Result { try work() }
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "full-pass"
        thread.start()
    }

    /// The pass's error if it has already failed; nil while it runs or once it has succeeded.
    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        if case .failure(let error) = outcome { return error }
        return nil
    }

    /// Waits for the pass to end, and throws its error if it failed.
    func wait() throws {
        condition.lock()
        while outcome == nil { condition.wait() }
        let result = outcome!
        condition.unlock()
        try result.get()
    }
}
