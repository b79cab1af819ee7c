/// A Prometheus histogram with fixed buckets per series, lock-free to observe.
/// Bucket counts are kept per bucket and summed into cumulative ones only when rendered,
/// so an observation is two atomic adds (its bucket and the sum).
final class Histogram: @unchecked Sendable {
    /// Upper bounds in seconds, ascending; +Inf is implied.
    let bounds: [Double]
    let seriesCount: Int
    private let buckets: AtomicCounters
    /// Sums in nanoseconds: integers, so they can be atomic.
    private let sums: AtomicCounters

    init(bounds: [Double], series: Int) {
        self.bounds = bounds
        self.seriesCount = series
        buckets = AtomicCounters(count: series * (bounds.count + 1))
        sums = AtomicCounters(count: series)
    }

    func observe(series: Int, seconds: Double) {
        var bucket = bounds.count
        for (index, bound) in bounds.enumerated() where seconds <= bound {
            bucket = index
            break
        }
        buckets.add(series * (bounds.count + 1) + bucket)
        sums.add(series, Int(max(0, seconds) * 1e9))
    }

    /// Cumulative counts per bucket (the last is +Inf, equal to the count) and the sum.
    func snapshot(series: Int) -> (cumulative: [Int], sumSeconds: Double) {
        var running = 0
        let cumulative = (0...bounds.count).map { bucket -> Int in
            running += buckets[series * (bounds.count + 1) + bucket]
            return running
        }
        return (cumulative, Double(sums[series]) / 1e9)
    }

    /// Latency of HTTP requests: tiles from disk take well under a millisecond, renders tens.
    static let requestBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Pyramid builds: a small photo takes a fraction of a second, a gigapixel minutes.
    static let buildBounds: [Double] = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600]
}
