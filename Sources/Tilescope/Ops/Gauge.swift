/// A value read when Prometheus scrapes, such as open connections or queued builds:
/// computed from the state that owns it rather than kept in step by hand. (Also a counter that
/// its owner keeps, such as the access log's dropped lines: read the same way, typed `counter`.)
public struct Gauge: Sendable {
    public typealias Sample = (labels: [(String, String)], value: Double)
    public var name: String
    public var help: String
    /// The Prometheus type: `gauge`, or `counter` for a total that only grows.
    public var type = "gauge"
    public var read: @Sendable () -> [Sample]

    public init(_ name: String, help: String, read: @escaping @Sendable () -> [Sample]) {
        self.name = name
        self.help = help
        self.read = read
    }

    /// A counter with one unlabelled series, kept by its owner and read at each scrape.
    public init(counter name: String, help: String, value: @escaping @Sendable () -> Double) {
        self.init(name, help: help) { [(labels: [], value: value())] }
        type = "counter"
    }

    /// A gauge with one unlabelled series.
    public init(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        self.init(name, help: help) { [(labels: [], value: value())] }
    }
}
