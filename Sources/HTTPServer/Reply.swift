/// What a handler returns: a response now, or work to run on a worker thread while the
/// connection is suspended, so that slow work never blocks libmicrohttpd's poll threads.
public enum Reply: Sendable {
    case now(Response)
    case later(@Sendable () -> Response)
}

/// The application side of the server.
public protocol HTTPHandler: Sendable {
    /// Called once per request, on a libmicrohttpd thread: must be quick or return `.later`.
    func handle(_ request: Request) -> Reply
    /// Called once the response has been sent (or the connection dropped).
    func completed(_ exchange: CompletedExchange)
}

extension HTTPHandler {
    public func completed(_ exchange: CompletedExchange) {}
}

/// A finished request, for access logs and metrics.
public struct CompletedExchange: Sendable {
    public var request: Request
    public var status: Int
    public var bytesSent: Int
    public var seconds: Double
    /// False when the client went away or the connection timed out before the end.
    public var completedNormally: Bool
}
