import CMicroHTTPD
import CShims
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: epoll poll threads for quick answers, a worker
/// pool for slow ones, sendfile for files, and a graceful stop.
public final class Server: @unchecked Sendable {
    public let options: ServerOptions
    let handler: any HTTPHandler
    let workers: WorkerPool
    private var daemon: OpaquePointer?
    private let inFlight = Atomic<Int>(0)
    private let openConnections = Atomic<Int>(0)

    public init(options: ServerOptions, handler: any HTTPHandler) {
        self.options = options
        self.handler = handler
        self.workers = WorkerPool(threads: options.workerThreads, name: "render")
    }

    /// Starts listening; throws if the address cannot be bound.
    public func start() throws {
        // MHD_FLAG values from microhttpd.h (Swift imports them without OR-ability).
        let useErrorLog: UInt32 = 1, useInternalPollingThread: UInt32 = 8, useEpoll: UInt32 = 512
        let allowSuspendResume: UInt32 = 8192 | 1024  // includes MHD_USE_ITC, needed by quiesce too
        let flags = useErrorLog | useInternalPollingThread | useEpoll | allowSuspendResume
        let context = Unmanaged.passUnretained(self).toOpaque()
        daemon = ts_mhd_start(
            flags, UInt16(clamping: options.port), options.host,
            accessTrampoline, context, keepEscapesTrampoline,
            completedTrampoline, context, connectionTrampoline, context,
            UInt32(max(1, options.pollThreads)), UInt32(options.connectionLimit),
            UInt32(options.connectionTimeout), options.connectionMemoryLimit, 511)
        guard daemon != nil else {
            throw ServerError(message: "cannot listen on \(options.host ?? "0.0.0.0"):\(options.port) (in use, or not allowed)")
        }
    }

    /// The port actually bound (the chosen one when `options.port` was 0).
    public var port: Int {
        guard let daemon else { return 0 }
        return Int(ts_mhd_bound_port(daemon))
    }

    public var openConnectionCount: Int { openConnections.load(ordering: .relaxed) }
    public var inFlightCount: Int { inFlight.load(ordering: .relaxed) }

    /// Stops accepting, lets requests in flight finish until `deadline` seconds have
    /// passed, then closes every connection. Idle keep-alive connections are not waited for.
    public func stop(deadline: Double) {
        guard let daemon else { return }
        let listener = MHD_quiesce_daemon(daemon)
        let end = Date().addingTimeInterval(deadline)
        while inFlight.load(ordering: .acquiring) > 0 && Date() < end {
            usleep(10_000)
        }
        MHD_stop_daemon(daemon)
        if listener >= 0 { close(listener) }
        self.daemon = nil
        workers.shutdown()
    }

    // MARK: - libmicrohttpd callbacks

    fileprivate func access(
        _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>?,
        _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        guard let connection, let context else { return .NO }
        guard let stored = context.pointee else {
            // First call: headers only. Answering now would cost keep-alive (PLATFORM.md),
            // so only oversized bodies are refused here, before "100 Continue" goes out.
            let exchange = Exchange(request: ConnectionReader.request(connection, url: url, method: method))
            inFlight.add(1, ordering: .relaxed)
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            if let length = exchange.request.header("content-length").flatMap(Int.init), length > options.maxBodyBytes {
                exchange.bodyTooLarge = true
                return send(tooLarge(), for: exchange, on: connection)
            }
            return .YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
        if let uploadSize, uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if exchange.bodyTooLarge { return .YES }
            if exchange.request.body.count + count > options.maxBodyBytes {
                exchange.bodyTooLarge = true
                return send(tooLarge(), for: exchange, on: connection)
            }
            uploadData?.withMemoryRebound(to: UInt8.self, capacity: count) {
                exchange.request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
            }
            return .YES
        }
        if exchange.bodyTooLarge { return .YES }
        if let response = exchange.pending {
            exchange.pending = nil
            return send(response, for: exchange, on: connection)
        }
        guard !exchange.dispatched else { return .YES }
        exchange.dispatched = true
        switch handler.handle(exchange.request) {
        case .now(let response):
            return send(response, for: exchange, on: connection)
        case .later(let work):
            MHD_suspend_connection(connection)
            let resumable = ResumableConnection(connection)
            workers.submit {
                exchange.pending = work()
                MHD_resume_connection(resumable.connection)
            }
            return .YES
        }
    }

    private func tooLarge() -> Response {
        let message = #"{"error":"payload_too_large","message":"the request body is larger than \#(options.maxBodyBytes) bytes"}"#
        return Response(status: 413, headers: [("Content-Type", "application/json"), ("Connection", "close")],
                        body: .bytes(Array(message.utf8)))
    }

    private func send(_ response: Response, for exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        var response = response
        let total = "total;dur=" + ASCII.milliseconds(exchange.elapsedSeconds)
        if let index = response.headers.firstIndex(where: { ASCII.equalIgnoringCase($0.name, "Server-Timing") }) {
            response.headers[index].value += ", " + total  // after what the handler measured
        } else {
            response.headers.append(("Server-Timing", total))
        }
        exchange.sentStatus = response.status
        exchange.sentBytes = exchange.request.isHead ? 0 : response.bodySize
        return ResponseWriter.queue(response, on: connection)
    }

    fileprivate func completed(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, ok: Bool) {
        guard let context, let stored = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeRetainedValue()
        inFlight.subtract(1, ordering: .releasing)
        handler.completed(CompletedExchange(
            request: exchange.request, status: exchange.sentStatus, bytesSent: exchange.sentBytes,
            seconds: exchange.elapsedSeconds, completedNormally: ok))
    }

    fileprivate func connection(opened: Bool) {
        if opened { openConnections.add(1, ordering: .relaxed) } else { openConnections.subtract(1, ordering: .relaxed) }
    }
}

/// Why the server could not start.
public struct ServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// A suspended connection handed to a worker; libmicrohttpd allows resuming from any thread.
private struct ResumableConnection: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}

// Named C-compatible functions, not closure literals: a closure formed in an isolated
// context traps when libmicrohttpd calls it from its own threads (PLATFORM.md).

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
    server(context).connection(opened: code == .CONNECTION_NOTIFY_STARTED)
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
