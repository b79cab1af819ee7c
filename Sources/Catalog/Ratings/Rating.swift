/// The rating scale: whole numbers from 0 to 10, the stepper of the classic image-rater app.
public enum Rating {
    public static let range: ClosedRange<Int> = 0...10

    /// `value` if it is on the scale, else `RatingError.outOfRange`.
    public static func validated(_ value: Int) throws(RatingError) -> Int {
        guard range.contains(value) else { throw .outOfRange(value) }
        return value
    }
}
