/// The rule-8 epsilon: comparisons, `floor` and `ceil` forgive 1e-9 so that exact powers of two
/// computed in floating point land where exact arithmetic would put them.
public enum Tolerance {
    public static let epsilon = 1e-9

    /// `floor(x + ε)`: 2.9999999999 counts as 3.
    public static func floor(_ x: Double) -> Double { (x + epsilon).rounded(.down) }

    /// `ceil(x - ε)`: 3.0000000001 counts as 3.
    public static func ceil(_ x: Double) -> Double { (x - epsilon).rounded(.up) }

    /// `a <= b + ε`.
    public static func lessOrEqual(_ a: Double, _ b: Double) -> Bool { a <= b + epsilon }
}
