/// Input a rating store refuses: the HTTP layer answers these with 400 and `description` as the message.
public enum RatingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rating is not a whole number from `Rating.range`.
    case outOfRange(Int)
    /// An image id is the empty string.
    case emptyID

    public var description: String {
        switch self {
        case .outOfRange(let value):
            "rating \(value) is out of range: a rating is a whole number from \(Rating.range.lowerBound) to \(Rating.range.upperBound)"
        case .emptyID:
            "an image id cannot be empty"
        }
    }
}
