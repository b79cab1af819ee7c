/// A value read when Prometheus scrapes, such as open connections or queued builds:
/// computed from the state that owns it rather than kept in step by hand.
public struct Gauge: Sendable {
    public typealias Sample = (labels: [(String, String)], value: Double)
    public var name: String
    public var help: String
    public var read: @Sendable () -> [Sample]

    public init(_ name: String, help: String, read: @escaping @Sendable () -> [Sample]) {
        self.name = name
        self.help = help
        self.read = read
    }

    /// A gauge with one unlabelled series.
    public init(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        self.init(name, help: help) { [(labels: [], value: value())] }
    }
}
