/// Rule 4: where the contentOffset may be, per axis, for a given content size, viewport and insets.
///
/// The allowed range runs from `-leadingInset` to `contentSize + trailingInset - viewportSize`. When it is empty
/// (content smaller than the available area) it collapses to the one offset that centres the content:
/// `-leadingInset - (available - content) / 2`.
public struct ContentOffsetRange: Hashable, Sendable {
    public let x: ClosedRange<Double>
    public let y: ClosedRange<Double>

    public init(contentSize: Size, boundsSize: Size, contentInset: Insets) {
        x = Self.axis(content: contentSize.width, viewport: boundsSize.width,
                      leading: contentInset.left, trailing: contentInset.right)
        y = Self.axis(content: contentSize.height, viewport: boundsSize.height,
                      leading: contentInset.top, trailing: contentInset.bottom)
    }

    /// The nearest allowed offset. Idempotent: clamping a clamped offset changes nothing.
    public func clamp(_ offset: Point) -> Point {
        Point(x: Self.clamp(offset.x, into: x), y: Self.clamp(offset.y, into: y))
    }

    /// Whether the content is centred on this axis (smaller than the available area).
    public var isCentredHorizontally: Bool { x.lowerBound == x.upperBound }
    public var isCentredVertically: Bool { y.lowerBound == y.upperBound }

    static func axis(content: Double, viewport: Double, leading: Double, trailing: Double) -> ClosedRange<Double> {
        let low = -leading
        let high = content + trailing - viewport
        if high >= low { return low...high }
        let available = viewport - leading - trailing
        let centred = -leading - (available - content) / 2
        return centred...centred
    }

    static func clamp(_ value: Double, into range: ClosedRange<Double>) -> Double {
        // `value` is finite by the parser's contract; NaN would fall to the lower bound rather than escape.
        guard value >= range.lowerBound else { return range.lowerBound }
        return min(value, range.upperBound)
    }
}
