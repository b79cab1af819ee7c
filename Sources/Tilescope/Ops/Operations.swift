import Foundation
import HTTPServer
import Synchronization

/// What a well-run service exposes about itself: metrics, readiness and the access log,
/// fed by the server's completion hook once per request.
public final class Operations: Sendable {
    public let metrics = Metrics()
    public let readiness = Readiness()
    /// Nil when quiet.
    let accessLog: AccessLog?
    /// Writes the access log's lines off the poll threads; nil when quiet.
    let accessLogWriter: AccessLogWriter?
    /// Conditional requests (`If-None-Match`): a hit when the client's copy was current (304).
    private let revalidations: CacheCounter
    /// The queues of work behind the replies (`WorkQueue`): counted at each scrape, stopped with the service.
    private let workQueues = Mutex<[WorkQueue]>([])

    public init(accessLog: AccessLog?) {
        self.accessLog = accessLog
        let writer = accessLog.map { AccessLogWriter(descriptor: $0.descriptor) }
        accessLogWriter = writer
        revalidations = metrics.cache("http_revalidation")
        metrics.register(Gauge(counter: "tilescope_access_log_dropped_lines_total",
                               help: "Access-log lines dropped because stdout was not read fast enough (its buffer was full) or could not be written.") {
            Double(writer?.droppedLines ?? 0)
        })
        // Weak: the metrics are this object's.
        metrics.register(Gauge("tilescope_work_queue_jobs",
                               help: "Jobs of work behind the replies waiting for a thread (queued) or under way (running), by work queue.") {
            [weak self] in
            (self?.workQueueCounts ?? []).flatMap { name, counts in
                [(labels: [("queue", name), ("state", "queued")], value: Double(counts.queued)),
                 (labels: [("queue", name), ("state", "running")], value: Double(counts.running))]
            }
        })
        var finished = Gauge("tilescope_work_queue_jobs_total",
                             help: "Jobs of work behind the replies finished (done) or refused because the queue was full or stopping (dropped) since start, by work queue.") {
            [weak self] in
            (self?.workQueueCounts ?? []).flatMap { name, counts in
                [(labels: [("queue", name), ("result", "done")], value: Double(counts.done)),
                 (labels: [("queue", name), ("result", "dropped")], value: Double(counts.dropped))]
            }
        }
        finished.type = "counter"
        metrics.register(finished)
    }

    /// Counts `queue` in /metrics from now on, and stops it with the others (`stopWorkQueues`).
    func adopt(_ queue: WorkQueue) {
        workQueues.withLock { $0.append(queue) }
    }

    private var workQueueCounts: [(name: String, counts: WorkQueue.Counts)] {
        workQueues.withLock { $0 }.map { ($0.name, $0.snapshot) }
    }

    /// Stops every work queue: none takes new jobs, and those accepted get until `seconds` from now, in all,
    /// to finish. The queues that still had jobs then, with how many (their work is made again on request).
    func stopWorkQueues(deadline seconds: Double) -> [(name: String, left: Int)] {
        let deadline = Date().addingTimeInterval(seconds)
        let queues = workQueues.withLock { $0 }
        queues.forEach { $0.refuseNewJobs() }  // all at once: none takes work while another drains
        return queues.compactMap { queue in
            let left = queue.shutdown(deadline: max(0, deadline.timeIntervalSinceNow))
            return left > 0 ? (queue.name, left) : nil
        }
    }

    /// Writes the access-log lines still queued, waiting at most `seconds`: a stdout nobody reads must
    /// not hold the exit. False if lines were left unwritten.
    @discardableResult
    public func stopAccessLog(deadline seconds: Double) -> Bool {
        accessLogWriter?.stop(deadline: seconds) ?? true
    }

    /// Counts and logs one finished exchange. Runs on a server thread after every response.
    func completed(_ exchange: CompletedExchange) {
        let route = Endpoint.routeIndex(of: exchange.request)
        metrics.record(route: route, status: exchange.status, bytes: exchange.bytesSent, seconds: exchange.seconds,
                       completedNormally: exchange.completedNormally, isHead: exchange.request.isHead)
        if let queued = exchange.queuedSeconds { metrics.recordRenderWait(seconds: queued) }
        if exchange.status == 304 || exchange.status == 200, exchange.request.headers["if-none-match"] != nil {
            if exchange.status == 304 { revalidations.hit() } else { revalidations.miss() }
        }
        if let accessLog, let accessLogWriter {
            accessLogWriter.append(accessLog.lineBytes(exchange, route: Endpoint.routeNames[route]))
        }
    }

    /// The same for a tile answered from the hot tile answers: only tiles are kept there, so the route is
    /// known, and the request is built only for the access log.
    func completedHot(_ exchange: HotExchange) {
        let route = Endpoint.tileRoute
        metrics.record(route: route, status: exchange.status, bytes: exchange.bytesSent, seconds: exchange.seconds,
                       completedNormally: exchange.completedNormally, isHead: exchange.isHead)
        if exchange.hadIfNoneMatch, exchange.status == 304 || exchange.status == 200 {
            if exchange.status == 304 { revalidations.hit() } else { revalidations.miss() }
        }
        if let accessLog, let accessLogWriter {
            accessLogWriter.append(accessLog.lineBytes(exchange.completed, route: Endpoint.routeNames[route]))
        }
    }
}
