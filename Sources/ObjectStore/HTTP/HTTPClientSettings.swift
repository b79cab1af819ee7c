/// Timeouts and bounds of an `HTTPClient`: every wait and every size has a limit, so a server that
/// stalls or answers without end costs a bounded time and memory, never a hang.
public struct HTTPClientSettings: Sendable {
    /// Seconds to open a TCP connection (a stopped server is refused at once on loopback; this bounds
    /// a host that does not answer).
    public var connectTimeout: Double = 2
    /// Seconds for one whole exchange once connected: sending the request, reading the whole answer.
    public var requestTimeout: Double = 30
    /// Largest answer head (status line and headers).
    public var maxHeadBytes = 64 * 1024
    /// Largest answer body: a longer one is refused (`HTTPClientError.responseTooLarge`), not read.
    public var maxBodyBytes = 256 * 1024 * 1024
    /// Idle keep-alive connections kept per client.
    public var maxIdleConnections = 16
    /// An idle connection older than this is closed rather than reused: servers close idle
    /// connections after their own timeout (SeaweedFS 30 s, S3 about 20 s), and a request sent on
    /// a connection the server is closing is lost.
    public var maxIdleSeconds: Double = 15

    public init() {}
}
