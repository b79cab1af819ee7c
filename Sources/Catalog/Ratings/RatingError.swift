/// Input a rating store refuses: the HTTP layer answers these with 400 and `description` as the message.
public enum RatingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rating is not a whole number from `Rating.range`.
    case outOfRange(Int)
    /// An image id is the empty string.
    case emptyID

    /// The message for a rating outside `Rating.range`, `shown` as it was sent (`11`, `1e23`, `1e400`).
    public static func outOfRangeMessage(_ shown: String) -> String {
        "rating \(shown) is out of range: a rating is a whole number from \(Rating.range.lowerBound) to \(Rating.range.upperBound)"
    }

    public var description: String {
        switch self {
        case .outOfRange(let value):
            Self.outOfRangeMessage(String(value))
        case .emptyID:
            "an image id cannot be empty"
        }
    }
}
