/// The scroll view's contentInset in points: room around the content that the content may scroll into.
public struct Insets: Hashable, Sendable, Codable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = Insets(top: 0, left: 0, bottom: 0, right: 0)

    public var horizontal: Double { left + right }
    public var vertical: Double { top + bottom }
}
