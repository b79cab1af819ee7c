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
    /// Connections served at once. A new one over this closes the connection that has waited longest
    /// without a request under way (slow and idle clients first), so new clients are served, not refused.
    public var connectionLimit: Int
    /// Seconds an idle keep-alive connection stays open (libmicrohttpd's inactivity timeout).
    public var connectionTimeout: Int
    /// Seconds a client has to send a whole request head, from connecting (or, on keep-alive, from the
    /// end of the idle time). Separate from `connectionTimeout`, which a client sending one byte a
    /// second never reaches.
    public var headerTimeout: Int
    /// Pending connections the kernel queues while the poll threads accept.
    public var listenBacklog: Int
    /// Per-connection buffer for headers and upload chunks; small keeps keep-alive cheap.
    public var connectionMemoryLimit: Int
    /// Request bodies larger than this are answered with 413 before they are read.
    public var maxBodyBytes: Int
    /// Budgets and bounds of costly work (`Reply.costly`); by default from `workerThreads` and the defaults below.
    public var costly: FairQueueLimits?

    /// A client's default budget of costly work: 64 million pixels (decoded plus encoded) a second. A viewer
    /// panning over IIIF tiles not yet made asks for about 130,000 a tile (one stored tile decoded, one encoded):
    /// 250 new tiles a second, a 5K screen's worth, is half of it.
    public static let defaultPixelsPerSecond = 64_000_000.0
    /// What a client may spend at once after a pause: four seconds of the budget.
    public static let defaultBurstPixels = 256_000_000.0
    /// A queued render that has not started after this long is refused: its client has most likely given up.
    public static let defaultMaxQueueWait = 30.0

    /// The limits in force: `costly`, or the defaults for `workerThreads`.
    public var costlyLimits: FairQueueLimits {
        costly ?? FairQueueLimits(
            pixelsPerSecond: Self.defaultPixelsPerSecond, burstPixels: Self.defaultBurstPixels,
            capacity: 64 * max(1, workerThreads), overBudgetWaitingPerClient: 2 * max(1, workerThreads),
            normalPerClient: max(1, workerThreads / 2), maxWaitSeconds: Self.defaultMaxQueueWait)
    }

    public init(
        host: String? = nil, port: Int = 8080, pollThreads: Int = 2, workerThreads: Int = 2,
        connectionLimit: Int = 1000, connectionTimeout: Int = 30, headerTimeout: Int = 10,
        connectionMemoryLimit: Int = 16 * 1024, maxBodyBytes: Int = 1 << 20, listenBacklog: Int = 4096
    ) {
        self.headerTimeout = headerTimeout
        self.listenBacklog = listenBacklog
        self.host = host
        self.port = port
        self.pollThreads = pollThreads
        self.workerThreads = workerThreads
        self.connectionLimit = connectionLimit
        self.connectionTimeout = connectionTimeout
        self.connectionMemoryLimit = connectionMemoryLimit
        self.maxBodyBytes = maxBodyBytes
    }

    /// libmicrohttpd's own limit sits this far above `connectionLimit`, so that it keeps accepting while
    /// the connections the guard closed to make room are still being torn down.
    public var connectionSlack: Int { max(16, connectionLimit / 16) }
}
