/// How the HTTP server listens and how much it lets each client take.
public struct ServerOptions: Sendable {
    /// IPv4 address to bind; nil for every interface.
    public var host: String?
    /// 0 picks a free port (see `Server.port`).
    public var port: Int
    /// libmicrohttpd poll threads (epoll, one per core is the measured sweet spot).
    public var pollThreads: Int
    /// Threads for `.later` work such as rendering.
    public var workerThreads: Int
    /// Connections over this wait in the kernel's backlog instead of being served.
    public var connectionLimit: Int
    /// Seconds of inactivity after which a connection is closed, so idle or slow
    /// clients cannot hold connections forever.
    public var connectionTimeout: Int
    /// Per-connection buffer for headers and upload chunks; small keeps keep-alive cheap.
    public var connectionMemoryLimit: Int
    /// Request bodies larger than this are answered with 413 before they are read.
    public var maxBodyBytes: Int

    public init(
        host: String? = nil, port: Int = 8080, pollThreads: Int = 2, workerThreads: Int = 2,
        connectionLimit: Int = 1000, connectionTimeout: Int = 30,
        connectionMemoryLimit: Int = 16 * 1024, maxBodyBytes: Int = 1 << 20
    ) {
        self.host = host
        self.port = port
        self.pollThreads = pollThreads
        self.workerThreads = workerThreads
        self.connectionLimit = connectionLimit
        self.connectionTimeout = connectionTimeout
        self.connectionMemoryLimit = connectionMemoryLimit
        self.maxBodyBytes = maxBodyBytes
    }
}
