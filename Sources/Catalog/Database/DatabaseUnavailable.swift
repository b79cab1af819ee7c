/// The catalog database cannot be reached right now (restarting, network gone, every connection
/// busy): the request may succeed later. The HTTP layer answers 503 with `retryAfterSeconds`.
public struct DatabaseUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
    /// When trying again makes sense: the reconnect backoff still to run, at least one second.
    public let retryAfterSeconds: Int
    /// Why, for logs and the error message (no credentials: the database URL is never included).
    public let reason: String

    public init(retryAfterSeconds: Int, reason: String) {
        self.retryAfterSeconds = max(1, retryAfterSeconds)
        self.reason = reason
    }

    public var description: String { "the catalog database is unavailable: \(reason)" }
}
