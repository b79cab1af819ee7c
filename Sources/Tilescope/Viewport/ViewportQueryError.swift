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

    static func notANumberValue(_ field: String) -> Self {
        Self(field: field, message: "\(field) must not be NaN")
    }

    /// `text` as sent: `inf`, or a numeral beyond Double such as `1e400`.
    static func notFinite(_ field: String, _ text: String) -> Self {
        Self(field: field, message: "\(field) must be finite, got \(text.prefix(40))")
    }

    /// `sent` is the text the value came from, shown when the value cannot be (`1e400`, beyond Double).
    static func outOfRange(_ field: String, _ value: Double, _ expected: String, sent: String? = nil) -> Self {
        let shown = value.isFinite || sent == nil ? ViewportJSON.number(value) : String(sent!.prefix(40))
        return Self(field: field, message: "\(field) must be \(expected), got \(shown)")
    }

    /// Which of two values would count must never be a guess: the request says it once.
    static func givenTwice(_ field: String) -> Self {
        Self(field: field, message: "\(field) is given twice")
    }

    static func malformed(_ field: String, _ expected: String) -> Self {
        Self(field: field, message: "\(field) must be \(expected)")
    }
}
