import Foundation

/// Estimates the seconds a computation has left from the share done and the time that took.
///
/// libvips's own estimate stays 0 until a tenth is done (and through dzsave's pipeline, for the
/// first sixth or so of a build); this one exists from the first percent on.
struct ProgressClock {
    /// The largest estimate given (a year): a bound, so no arithmetic on a tiny share can trap.
    static let longest = 365 * 24 * 3600

    let startedAt: Double

    /// `startedAt` and `now` are seconds on one monotonic clock (`now()`).
    init(startedAt: Double = ProgressClock.now()) {
        self.startedAt = startedAt
    }

    /// Rounded up, so a computation that is not done never claims 0 seconds left.
    func estimate(percent: Int, now: Double = ProgressClock.now()) -> Int {
        guard percent > 0, percent < 100 else { return 0 }
        let elapsed = max(0, now - startedAt)
        let left = elapsed * Double(100 - percent) / Double(percent)
        guard left.isFinite, left < Double(Self.longest) else { return Self.longest }
        return Int(left.rounded(.up))
    }

    /// Seconds since boot: never goes back when the wall clock is set.
    static func now() -> Double { ProcessInfo.processInfo.systemUptime }
}
