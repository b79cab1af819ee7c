import CMicroHTTPD
import CHTTPShims
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: epoll poll threads for quick answers, a worker
/// pool for slow ones, sendfile for files, and a graceful stop.
public final class Server: @unchecked Sendable {
    public let options: ServerOptions
    let handler: any HTTPHandler
    let workers: WorkerPool
    /// Costly work (`Reply.costly`), per client and within budgets.
    let costly: CostlyWorkers
    /// One per poll thread; empty when not started or stopped.
    private(set) var loops: [EventLoop] = []
    /// What each daemon calls: the hot table, then this server's callbacks. Freed after the daemons stop.
    private var glue: OpaquePointer?
    private let inFlight = Atomic<Int>(0)
    private let openConnections = Atomic<Int>(0)
    private let suspended = SuspendedConnections()
    /// Header deadlines and room for new clients when full: see `ConnectionGuard`.
    private let connections: ConnectionGuard

    public init(options: ServerOptions, handler: any HTTPHandler) {
        self.options = options
        self.handler = handler
        self.workers = WorkerPool(threads: options.workerThreads, name: "worker")
        self.costly = CostlyWorkers(limits: options.costlyLimits, normalThreads: options.workerThreads,
                                    spareThreads: options.workerThreads, name: "render")
        self.connections = ConnectionGuard(maxConnections: options.connectionLimit,
                                           headerTimeout: Double(options.headerTimeout),
                                           idleTimeout: Double(options.connectionTimeout))
    }

    /// Starts listening; throws if the address cannot be bound.
    ///
    /// One libmicrohttpd daemon per poll thread, all accepting on one listening socket (the first
    /// daemon binds it), each run by an `EventLoop` of ours rather than libmicrohttpd's thread pool,
    /// whose epoll loop can stall with 128 ready connections (see `EventLoop`).
    public func start() throws {
        // MHD_FLAG values from microhttpd.h (Swift imports them without OR-ability).
        let useErrorLog: UInt32 = 1, useEpoll: UInt32 = 512
        let allowSuspendResume: UInt32 = 8192 | 1024  // includes MHD_USE_ITC, needed by quiesce too
        let flags = useErrorLog | useEpoll | allowSuspendResume
        ts_mhd_install_panic_handler()  // before the first daemon: see CHTTPShims.h for the race it survives
        let count = max(1, options.pollThreads)
        // libmicrohttpd's own limit per daemon, as its thread pool divided it between threads.
        let limit = (options.connectionLimit + options.connectionSlack + count - 1) / count
        suspended.resumed = { [weak self] connection in self?.wakeLoop(serving: connection) }
        // Every daemon and loop exists before any thread runs: a daemon in this mode does nothing until its
        // loop calls it, and workers read `loops` (to wake one) once connections are served.
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let glue = ts_http_glue_create(accessTrampoline, context, completedTrampoline, context,
                                             handler.hotResponses?.table, hotStartedTrampoline, hotFinishedTrampoline,
                                             context) else {
            throw ServerError(message: "cannot start the HTTP server (out of memory)")
        }
        self.glue = glue
        var listener: Int32 = -1
        for index in 0..<count {
            guard let daemon = startDaemon(flags: flags, listeningOn: listener, connectionLimit: limit) else {
                stopLoops(closing: listener)
                throw ServerError(message: "cannot listen on \(options.host ?? "0.0.0.0"):\(options.port) (in use, or not allowed)")
            }
            if index == 0 { listener = ts_mhd_listen_fd(daemon) }
            guard listener >= 0, let loop = EventLoop(daemon: daemon) else {
                _ = MHD_quiesce_daemon(daemon)
                MHD_stop_daemon(daemon)
                stopLoops(closing: listener)
                throw ServerError(message: "cannot start the HTTP event loop (out of descriptors)")
            }
            loops.append(loop)
        }
        for (index, loop) in loops.enumerated() where !loop.start(name: "http-poll-\(index)") {
            stopLoops(closing: listener)
            throw ServerError(message: "cannot start the HTTP event loop (out of threads)")
        }
        connections.startReaper()
    }

    private func startDaemon(flags: UInt32, listeningOn listener: Int32, connectionLimit: Int) -> OpaquePointer? {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return ts_mhd_start_loop(
            flags, UInt16(clamping: options.port), options.host, listener,
            glue, keepEscapesTrampoline, connectionTrampoline, context,
            UInt32(clamping: connectionLimit), UInt32(options.connectionTimeout), options.connectionMemoryLimit,
            UInt32(options.listenBacklog))
    }

    /// Wakes the event loop of the daemon that serves `connection`.
    private func wakeLoop(serving connection: OpaquePointer) {
        let daemon = ts_mhd_connection_daemon(connection)
        loops.first { $0.daemon == daemon }?.wake()
    }

    /// Ends every loop and stops its daemon, then closes the shared listening socket. Every daemon is
    /// quiesced first so that none closes the socket the others still hold.
    private func stopLoops(closing listener: Int32) {
        stopAccepting()
        for loop in loops {
            loop.stop()
            MHD_stop_daemon(loop.daemon)
        }
        loops.removeAll()
        if listener >= 0 { close(listener) }
        if let glue { ts_http_glue_destroy(glue) }
        glue = nil
    }

    /// The port actually bound (the chosen one when `options.port` was 0).
    public var port: Int {
        guard let first = loops.first else { return 0 }
        return Int(ts_mhd_bound_port(first.daemon))
    }

    public var openConnectionCount: Int { openConnections.load(ordering: .relaxed) }
    /// Connections closed for not sending a whole request head within `headerTimeout`, and closed to
    /// make room for new clients at `connectionLimit`.
    public var guardCounts: (headerTimeouts: Int, evictions: Int) {
        let counts = connections.counts
        return (counts.headerTimeouts, counts.evictions)
    }
    public var inFlightCount: Int { inFlight.load(ordering: .relaxed) }

    /// Stops accepting new connections (they wait unanswered in the kernel's backlog); connections
    /// already open are served on. `stop(deadline:)` does this first too; calling it before lets the
    /// caller say so only once it is true.
    public func stopAccepting() {
        for loop in loops { _ = MHD_quiesce_daemon(loop.daemon) }
    }

    /// Stops accepting, lets requests in flight finish until `deadline` seconds have passed, answers the
    /// ones still waiting on a worker with 503 (allowing `answerGrace` for those to go out), then closes
    /// every connection. Idle keep-alive connections are not waited for.
    ///
    /// Returns how many requests were still in flight when the deadline passed: 0 when every one
    /// finished in time, so that the caller can say which of the two ended the wait.
    @discardableResult
    public func stop(deadline: Double) -> Int {
        guard let first = loops.first else { return 0 }
        let listener = ts_mhd_listen_fd(first.daemon)
        stopAccepting()
        let unfinished = waitForRequestsInFlight(seconds: deadline)
        // libmicrohttpd cannot stop with connections suspended, and their workers must not resume them
        // after it has: the stop answers them itself.
        suspended.closeAndResumeAll { self.stopping() }
        waitForRequestsInFlight(seconds: Self.answerGrace)
        stopLoops(closing: listener)
        connections.stopReaper()
        workers.shutdown()
        costly.shutdown()
        return unfinished
    }

    /// How long a stop past its deadline waits for the 503s it gave to requests still on a worker to go out.
    static let answerGrace = 0.5

    /// Returns the requests still in flight: 0 when they all finished before `seconds` passed.
    @discardableResult
    private func waitForRequestsInFlight(seconds: Double) -> Int {
        let end = Date().addingTimeInterval(seconds)
        while inFlight.load(ordering: .acquiring) > 0 && Date() < end {
            usleep(5_000)
        }
        return max(0, inFlight.load(ordering: .acquiring))
    }

    // MARK: - libmicrohttpd callbacks

    fileprivate func access(
        _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>?,
        _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        guard let connection, let context else { return .NO }
        guard let stored = context.pointee else {
            // First call: headers only. Answering now would cost keep-alive (docs/platform.md),
            // so only bodies refused outright are answered here, before "100 Continue" goes out.
            let exchange = Exchange(request: ConnectionReader.request(connection, url: url, method: method))
            exchange.connectionEntry = ts_mhd_socket_context(connection)
            if let entry = exchange.connectionEntry {
                connections.requestStarted(Unmanaged<ConnectionGuard.Entry>.fromOpaque(entry).takeUnretainedValue())
            }
            inFlight.add(1, ordering: .relaxed)
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            return begin(exchange, on: connection)
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
        if let uploadSize, uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if exchange.answeredEarly { return .YES }
            if exchange.refusal != nil { return discard(count, for: exchange) }
            let chunk = UnsafeRawBufferPointer(start: uploadData, count: count)
            if exchange.sink != nil { return stream(chunk, for: exchange) }
            if exchange.request.body.count + count > options.maxBodyBytes {
                exchange.request.body = []
                exchange.refusal = tooLarge(limit: options.maxBodyBytes)
                return discard(count, for: exchange)
            }
            exchange.request.body.append(contentsOf: chunk)
            return .YES
        }
        if exchange.answeredEarly { return .YES }
        if let refusal = exchange.refusal {
            exchange.refusal = nil
            exchange.dispatched = true
            return send(refusal, for: exchange, on: connection)
        }
        if let response = exchange.pending {
            exchange.pending = nil
            return send(response, for: exchange, on: connection)
        }
        guard !exchange.dispatched else { return .YES }
        exchange.dispatched = true
        if let sink = exchange.sink {
            exchange.sink = nil
            return run(sink.finish(exchange.request), for: exchange, on: connection)
        }
        return run(handler.handle(exchange.request), for: exchange, on: connection)
    }

    /// The first call: asks the handler what to do with the body and refuses what must be refused now.
    private func begin(_ exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        let request = exchange.request
        // The names as stored (lower-cased): `header(_:)` would lower-case them again on every request.
        let declared = request.headers["content-length"].flatMap(Int.init)
        let coding = request.headers["transfer-encoding"]
        if let coding, !ASCII.equalIgnoringCase(coding.trimmingCharacters(in: .whitespaces), "chunked") {
            // RFC 9112 6.1: a transfer coding the server does not understand is 501, and the body cannot
            // be framed, so the connection closes. libmicrohttpd would wait for it until the timeout.
            exchange.answeredEarly = true
            return send(notImplemented(coding: coding), for: exchange, on: connection)
        }
        let hasBody = (declared ?? 0) > 0 || coding != nil
        switch handler.bodyHandling(for: request) {
        case .buffer:
            if let declared, declared > options.maxBodyBytes {
                exchange.answeredEarly = true
                return send(tooLarge(limit: options.maxBodyBytes), for: exchange, on: connection)
            }
        case .stream(let sink):
            if let declared, declared > sink.maxBytes {
                sink.abort()
                exchange.answeredEarly = true
                return send(tooLarge(limit: sink.maxBytes), for: exchange, on: connection)
            }
            exchange.sink = sink
        case .refuse(let response):
            // Without a body, wait for the next call so keep-alive survives.
            guard hasBody else {
                exchange.pending = response
                exchange.dispatched = true
                return .YES
            }
            exchange.answeredEarly = true
            return send(response, for: exchange, on: connection)
        }
        return .YES
    }

    /// Passes one chunk of a streamed body to its sink, enforcing the sink's size limit.
    private func stream(_ chunk: UnsafeRawBufferPointer, for exchange: Exchange) -> MHD_Result {
        guard let sink = exchange.sink else { return .YES }
        exchange.streamedBytes += chunk.count
        let refusal = exchange.streamedBytes > sink.maxBytes ? tooLarge(limit: sink.maxBytes) : sink.write(chunk)
        guard var refusal else { return .YES }
        exchange.sink = nil
        sink.abort()
        refusal.setHeader("Connection", "close")
        exchange.refusal = refusal
        return .YES
    }

    /// Reads and drops the rest of a refused body. libmicrohttpd accepts a response only once the
    /// body has ended (queueing one mid-body fails and drops the connection unanswered), so the
    /// refusal waits for the end; a client that keeps sending past `discardLimit` is cut off.
    private func discard(_ count: Int, for exchange: Exchange) -> MHD_Result {
        exchange.discardedBytes += count
        return exchange.discardedBytes > Self.discardLimit ? .NO : .YES
    }

    /// How much of a refused body is read (and dropped) to be able to answer it.
    static let discardLimit = 64 << 20

    /// Sends a reply now, or suspends the connection while a worker prepares it.
    private func run(_ reply: Reply, for exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        switch reply {
        case .now(let response):
            return send(response, for: exchange, on: connection)
        case .later(let work):
            guard suspended.suspend(exchange, on: connection) else {
                return send(stopping(), for: exchange, on: connection)
            }
            let suspended = self.suspended
            workers.submit {
                suspended.finish(exchange, with: work())
            }
            return .YES
        case .costly(let work):
            return runCostly(work, for: exchange, on: connection)
        }
    }

    /// Costly work: at once when alone and within budget (`CostlyWork.mayRunInline`), else queued fairly, or refused.
    private func runCostly(_ work: CostlyWork, for exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        if work.mayRunInline && inFlight.load(ordering: .relaxed) == 1
            && costly.mayRunInline(client: work.client, pixels: work.pixels) {
            exchange.queuedSeconds = 0
            return send(work.make(), for: exchange, on: connection)
        }
        let suspended = self.suspended
        let job = CostlyWorkers.Job(
            run: { waited in
                exchange.queuedSeconds = waited
                suspended.finish(exchange, with: Self.timed(work.make(), queued: waited))
            },
            refuse: { [self] refusal in
                exchange.costlyRefusal = refusal
                suspended.finish(exchange, with: refused(refusal))
            })
        switch costly.submit(job, client: work.client, pixels: work.pixels, admitted: {
            suspended.suspend(exchange, on: connection)
        }) {
        case .queued:
            return .YES
        case .refused(let refusal):
            exchange.costlyRefusal = refusal
            return send(refused(refusal), for: exchange, on: connection)
        case .stopping:
            return send(stopping(), for: exchange, on: connection)
        }
    }

    /// Adds the wait in the fair queue to the answer's `Server-Timing`, after what the handler measured and before
    /// the server's own `total`.
    private static func timed(_ response: Response, queued seconds: Double) -> Response {
        var response = response
        response.addServerTiming(ASCII.timing(prefix: "queue;dur=", seconds: seconds))
        return response
    }

    /// 429 for a client over its budget, 503 when the queue is full or the wait was too long, with `Retry-After`.
    private func refused(_ refusal: CostlyRefusal) -> Response {
        let status: Int, code: String, message: String
        switch refusal {
        case .overBudget(let seconds):
            status = 429
            code = "too_many_requests"
            message = "this client has spent its budget for rendering (\(Int(options.costlyLimits.pixelsPerSecond / 1_000_000)) million pixels a second) and has renders waiting beyond it: retry after \(seconds) s; stored tiles are not limited"
        case .full:
            status = 503
            code = "overloaded"
            message = "the render queue is full: retry shortly"
        case .waitedTooLong:
            status = 503
            code = "overloaded"
            message = "the render waited too long for a free thread: retry shortly"
        }
        let body = #"{"error":"\#(code)","message":"\#(message)"}"#
        return handler.decorate(serverResponse: Response(
            status: status,
            headers: [("Content-Type", "application/json"), ("Retry-After", String(refusal.retryAfter)),
                      ("Cache-Control", "no-store")],
            body: .bytes(Array(body.utf8))))
    }

    /// What the fair queue of costly work holds and has done.
    public var costlyCounts: FairQueueCounts { costly.counts }

    /// The answer to a request the server stopped before its worker finished.
    private func stopping() -> Response {
        let message = #"{"error":"stopping","message":"the server is stopping: retry"}"#
        return handler.decorate(serverResponse: Response(
            status: 503, headers: [("Content-Type", "application/json"), ("Connection", "close"), ("Retry-After", "1")],
            body: .bytes(Array(message.utf8))))
    }

    private func notImplemented(coding: String) -> Response {
        let message = #"{"error":"not_implemented","message":"the only Transfer-Encoding accepted is chunked alone: send chunked or a Content-Length"}"#
        return handler.decorate(serverResponse: Response(
            status: 501, headers: [("Content-Type", "application/json"), ("Connection", "close")],
            body: .bytes(Array(message.utf8))))
    }

    private func tooLarge(limit: Int) -> Response {
        let message = #"{"error":"payload_too_large","message":"the request body is larger than \#(limit) bytes"}"#
        return handler.decorate(serverResponse: Response(
            status: 413, headers: [("Content-Type", "application/json"), ("Connection", "close")],
            body: .bytes(Array(message.utf8))))
    }

    private func send(_ response: consuming Response, for exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        var response = response
        if let key = response.reuse, response.status == 200, exchange.request.method == "GET",
           case .shared(let bytes) = response.body, let hot = handler.hotResponses {
            hot.insert(key, headers: response.headers, body: bytes)  // before Server-Timing, made per request
        }
        response.addServerTiming(ASCII.timing(prefix: "total;dur=", seconds: exchange.elapsedSeconds))
        exchange.sentStatus = response.status
        exchange.sentBytes = exchange.request.isHead ? 0 : response.bodySize
        return ResponseWriter.queue(response, on: connection)
    }

    fileprivate func completed(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, ok: Bool) {
        guard let context, let stored = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeRetainedValue()
        inFlight.subtract(1, ordering: .releasing)
        if let entry = exchange.connectionEntry {
            connections.requestFinished(Unmanaged<ConnectionGuard.Entry>.fromOpaque(entry).takeUnretainedValue())
        }
        if let sink = exchange.sink {  // the client went away mid-body
            exchange.sink = nil
            sink.abort()
        }
        // libmicrohttpd does not say how much of an aborted response went out: count none of it
        // rather than all of it.
        handler.completed(CompletedExchange(
            request: exchange.request, status: exchange.sentStatus, bytesSent: ok ? exchange.sentBytes : 0,
            seconds: exchange.elapsedSeconds, completedNormally: ok, queuedSeconds: exchange.queuedSeconds,
            costlyRefusal: exchange.costlyRefusal))
    }

    /// A request found in the hot table: counted in flight and out of the guard's waiting lists, as `access` does.
    fileprivate func hotStarted(_ connection: OpaquePointer?) {
        inFlight.add(1, ordering: .relaxed)
        if let connection, let entry = ts_mhd_socket_context(connection) {
            connections.requestStarted(Unmanaged<ConnectionGuard.Entry>.fromOpaque(entry).takeUnretainedValue())
        }
    }

    /// A request answered from the hot table completed: the same bookkeeping as `completed`.
    fileprivate func hotFinished(_ connection: OpaquePointer?, _ done: UnsafePointer<ts_hot_done>?) {
        inFlight.subtract(1, ordering: .releasing)
        if let connection, let entry = ts_mhd_socket_context(connection) {
            connections.requestFinished(Unmanaged<ConnectionGuard.Entry>.fromOpaque(entry).takeUnretainedValue())
        }
        guard let done = done?.pointee else { return }
        handler.completedHot(HotExchange(
            status: Int(done.status), bytesSent: done.bytes_sent, seconds: done.seconds,
            completedNormally: done.completed_normally != 0, isHead: done.is_head != 0,
            hadIfNoneMatch: done.had_if_none_match != 0,
            targetBytes: UnsafeRawBufferPointer(start: done.target, count: done.target_length), connection: connection))
    }

    /// Keeps the connection's guard entry in its socket context from open to close.
    fileprivate func connection(_ connection: OpaquePointer?, _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                opened: Bool) {
        if opened {
            openConnections.add(1, ordering: .relaxed)
            guard let connection, let socketContext else { return }
            let entry = connections.opened(descriptor: ts_mhd_connection_fd(connection))
            socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
        } else {
            openConnections.subtract(1, ordering: .relaxed)
            guard let socketContext, let stored = socketContext.pointee else { return }
            socketContext.pointee = nil
            connections.closed(Unmanaged<ConnectionGuard.Entry>.fromOpaque(stored).takeRetainedValue())
        }
    }
}

/// Why the server could not start.
public struct ServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

// Named C-compatible functions, not closure literals: a closure formed in an isolated
// context traps when libmicrohttpd calls it from its own threads (docs/platform.md).

private func server(_ context: UnsafeMutableRawPointer?) -> Server {
    Unmanaged<Server>.fromOpaque(context!).takeUnretainedValue()
}

private func accessTrampoline(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    server(context).access(connection, url, method, uploadData, uploadSize, requestContext)
}

private func completedTrampoline(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    server(context).completed(requestContext, ok: code == .REQUEST_TERMINATED_COMPLETED_OK)
}

private func connectionTrampoline(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    server(context).connection(connection, socketContext, opened: code == .CONNECTION_NOTIFY_STARTED)
}

private func hotStartedTrampoline(_ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?) {
    server(context).hotStarted(connection)
}

private func hotFinishedTrampoline(_ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                                   _ done: UnsafePointer<ts_hot_done>?) {
    server(context).hotFinished(connection, done)
}

/// Leaves escapes in place: Tilescope decodes paths segment by segment itself.
private func keepEscapesTrampoline(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ text: UnsafeMutablePointer<CChar>?
) -> Int {
    guard let text else { return 0 }
    return strlen(text)
}

extension Server {
    /// The libmicrohttpd version this process runs with.
    public static var libraryVersion: String {
        MHD_get_version().map { String(cString: $0) } ?? "unknown"
    }
}

extension Response {
    /// Adds `entry` to the `Server-Timing` header, after what is there already (the handler's own steps).
    mutating func addServerTiming(_ entry: String) {
        if let index = headers.firstIndex(where: { ASCII.equalIgnoringCase($0.name, "Server-Timing") }) {
            headers[index].value += ", " + entry
        } else {
            headers.append(("Server-Timing", entry))
        }
    }
}
