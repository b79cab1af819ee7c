/// A viewport request that cannot be answered, with the field at fault and a message for a human (HTTP 400).
public struct ViewportQueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request field at fault (`width`, `insets`, ...), or `body` when the JSON itself is unreadable.
    public let field: String
    /// A sentence that names the field and says what was expected.
    public let message: String

    /// The short code for the `{"error", "message"}` answer.
    public static let code = "invalid_viewport"

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }

    static func missing(_ field: String) -> Self {
        Self(field: field, message: "\(field) is required")
    }

    static func notANumber(_ field: String, _ text: String) -> Self {
        Self(field: field, message: "\(field) must be a number, got '\(text.prefix(40))'")
    }

    static func notFinite(_ field: String, _ value: Double) -> Self {
        Self(field: field, message: value.isNaN ? "\(field) must not be NaN" : "\(field) must be finite, got \(value)")
    }

    static func outOfRange(_ field: String, _ value: Double, _ expected: String) -> Self {
        Self(field: field, message: "\(field) must be \(expected), got \(ViewportJSON.number(value))")
    }

    static func malformed(_ field: String, _ expected: String) -> Self {
        Self(field: field, message: "\(field) must be \(expected)")
    }
}
