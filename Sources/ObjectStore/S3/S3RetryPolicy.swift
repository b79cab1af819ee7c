import Foundation

/// How `S3Client` retries a call that failed in a way retrying may cure (`S3Error.isRetryable`: the
/// store down or restarting, 5xx, 503 SlowDown, timeouts): a few attempts with exponential backoff and
/// full jitter, so replicas that failed together do not retry together. Bounded: at most
/// `maxAttempts` sends and `maxDelay` between two.
///
/// Conditional PUTs (`If-None-Match: *`) are never retried: if the first attempt's answer was lost, a
/// second would be told 412 although the first created the object, and the caller could not tell it
/// won. The caller decides (by reading the object back, say).
public struct S3RetryPolicy: Sendable {
    /// Sends in all, the first included (1: no retry).
    public var maxAttempts: Int
    /// The first backoff's ceiling in seconds; doubled for each further attempt.
    public var baseDelay: Double
    public var maxDelay: Double

    public init(maxAttempts: Int = 3, baseDelay: Double = 0.05, maxDelay: Double = 1) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// No retry at all.
    public static let none = S3RetryPolicy(maxAttempts: 1)

    /// Seconds to wait before attempt `attempt` (2 for the first retry): uniform in 0...ceiling.
    func delay(beforeAttempt attempt: Int) -> Double {
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 2))))
        return ceiling > 0 ? Double.random(in: 0...ceiling) : 0
    }
}
