/// What a handler returns: a response now, or work to run on a worker thread while the
/// connection is suspended, so that slow work never blocks libmicrohttpd's poll threads.
public enum Reply: Sendable {
    case now(Response)
    case later(@Sendable () -> Response)
    /// Work that decodes or encodes pixels, with its estimated cost: queued per client in a fair order and
    /// metered against the client's budget (`FairQueue`, `CostlyWorkers`); refused with 429 or 503 and
    /// `Retry-After` when over. Answers from memory or a file never take this path.
    case costly(CostlyWork)
}

/// Costly work and what the fair queue needs to know of it.
public struct CostlyWork: Sendable {
    /// Whose budget pays: the client's address, or the address a trusted proxy forwarded for.
    public var client: ClientAddress
    /// The estimated cost: pixels decoded plus pixels encoded.
    public var pixels: Int
    /// Work of about a millisecond and bounded (one stored tile decoded and encoded): run at once on the poll
    /// thread when no other request is in flight in the whole server and nothing is queued, within the client's
    /// budget; else queued. A render thread's hand-off and the resume after it are two thread wake-ups, 0.1-0.3 ms
    /// here, a fifth of such a request's time for a client asking for one thing at a time (docs/benchmarks.md).
    /// The cost: a request arriving on the same poll thread meanwhile waits for the work, once; the next ones see
    /// it in flight and are queued. Never for work that can block or run long (a file made once for a whole
    /// image, an AVIF encoding, an fsync).
    public var mayRunInline: Bool
    public var make: @Sendable () -> Response

    public init(client: ClientAddress, pixels: Int, mayRunInline: Bool = false, make: @escaping @Sendable () -> Response) {
        self.client = client
        self.pixels = pixels
        self.mayRunInline = mayRunInline
        self.make = make
    }
}

/// The application side of the server.
public protocol HTTPHandler: Sendable {
    /// Called once per request, on a libmicrohttpd thread: must be quick or return `.later`.
    func handle(_ request: Request) -> Reply
    /// Called once the response has been sent (or the connection dropped).
    func completed(_ exchange: CompletedExchange)
    /// Called once per request when its headers have arrived, before any of its body is read:
    /// buffer the body (the default), stream it into a sink, or refuse it unread.
    func bodyHandling(for request: Request) -> BodyHandling
    /// Called on the responses the server makes by itself (413 for a body over a limit), so they
    /// carry the headers the application adds to all of its own (CORS, say).
    func decorate(serverResponse: Response) -> Response
    /// Responses the server may answer again without calling `handle` (`Response.reuse`); nil for none.
    var hotResponses: HotResponses? { get }
    /// Called instead of `completed` for a request answered from `hotResponses`.
    func completedHot(_ exchange: HotExchange)
}

extension HTTPHandler {
    public func bodyHandling(for request: Request) -> BodyHandling { .buffer }
    public func decorate(serverResponse: Response) -> Response { serverResponse }
    public func completed(_ exchange: CompletedExchange) {}
    public var hotResponses: HotResponses? { nil }
    public func completedHot(_ exchange: HotExchange) { completed(exchange.completed) }
}

/// A finished request, for access logs and metrics.
public struct CompletedExchange: Sendable {
    public var request: Request
    public var status: Int
    public var bytesSent: Int
    public var seconds: Double
    /// False when the client went away or the connection timed out before the end.
    public var completedNormally: Bool
    /// For costly work (`Reply.costly`): seconds it waited in the fair queue before a thread took it.
    public var queuedSeconds: Double? = nil
    /// For costly work refused with 429 or 503: which refusal.
    public var costlyRefusal: CostlyRefusal? = nil
}
