/// Why an HTTP exchange gave no usable answer. The text never holds request headers (they carry
/// signatures and tokens).
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host could not be resolved or the connection was refused or unreachable.
    case connectFailed(String)
    /// No connection, or no whole answer, within the timeout.
    case timedOut(String)
    /// The server closed the connection before the answer was whole.
    case connectionClosed
    /// The answer broke HTTP/1.1 (status line, headers, lengths, chunks).
    case malformedResponse(String)
    /// The answer's head or body is over its limit (the connection is dropped, the rest never read).
    case responseTooLarge(limit: Int)
    /// The request cannot be sent as given (a header with a line break, say).
    case invalidRequest(String)
    /// TLS could not be set up: the server's certificate is not trusted or not for this host, no
    /// common protocol. Not retryable: it would fail the same way.
    case tlsFailed(String)

    /// Whether sending the same request again may succeed: a server down, restarting or slow, yes;
    /// an answer that breaks the protocol or the limits, no (it would again).
    public var isRetryable: Bool {
        switch self {
        case .connectFailed, .timedOut, .connectionClosed: return true
        case .malformedResponse, .responseTooLarge, .invalidRequest, .tlsFailed: return false
        }
    }

    public var description: String {
        switch self {
        case .connectFailed(let why): return "cannot connect: \(why)"
        case .timedOut(let phase): return "timed out \(phase)"
        case .connectionClosed: return "the server closed the connection before the answer was whole"
        case .malformedResponse(let why): return "malformed HTTP answer: \(why)"
        case .responseTooLarge(let limit): return "the answer is larger than \(limit) bytes"
        case .invalidRequest(let why): return "invalid request: \(why)"
        case .tlsFailed(let why): return "TLS failed: \(why)"
        }
    }
}
