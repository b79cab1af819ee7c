/// An image's ratings as one viewer sees them: their own, and every viewer's average and count.
public struct RatingSummary: Equatable, Sendable {
    /// The viewer's own rating; nil when they have not rated the image (or no viewer was named).
    public var own: Int?
    /// The sum of every viewer's rating, kept whole so that the average is computed once, exactly.
    public var total: Int
    public var count: Int

    public static let none = RatingSummary(own: nil, total: 0, count: 0)

    public init(own: Int?, total: Int, count: Int) {
        self.own = own
        self.total = total
        self.count = count
    }

    /// The mean rating; nil when nobody has rated.
    public var average: Double? {
        count > 0 ? Double(total) / Double(count) : nil
    }
}
