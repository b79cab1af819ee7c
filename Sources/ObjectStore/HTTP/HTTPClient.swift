import Foundation

/// A small HTTP/1.1 client for one server (host and port), over POSIX sockets, in clear or through
/// TLS (OpenSSL's libssl), with keep-alive connections reused from a small pool.
///
/// Why not URLSession: measured side by side on loopback against SeaweedFS, signed GETs on keep-alive
/// connections (S3LatencyTests; docs/object-storage.md has the figures), this client's median was
/// 0.2-0.45 ms below URLSession's (0.7-0.9 ms against 0.9-1.2 ms), both well under issue 40's 3 ms:
/// latency alone did not decide. What did: URLSession (libcurl under FoundationNetworking) adds
/// headers of its own, reads a body whole without a bound unless driven by a delegate, and answers on
/// its own queue, where the server's worker threads want a blocking call. Here every header goes out
/// exactly as signed, every wait has a deadline and every size a limit.
public final class HTTPClient: @unchecked Sendable {
    public let host: String
    public let port: Int
    public let settings: HTTPClientSettings
    private let tls: TLSContext?
    private let lock = NSLock()
    private var idle: [HTTPConnection] = []

    /// `useTLS`: https, the server's certificate checked against `certificateAuthorities` (a PEM file) or,
    /// when nil, the system's authorities.
    public init(host: String, port: Int, settings: HTTPClientSettings = HTTPClientSettings(),
                useTLS: Bool = false, certificateAuthorities: String? = nil) throws {
        self.host = host
        self.port = port
        self.settings = settings
        tls = useTLS ? try TLSContext(certificateAuthorities: certificateAuthorities) : nil
    }

    /// Sends `request` and reads the whole answer. A pooled connection the server closed meanwhile is
    /// noticed (nothing at all came back) and the request is sent once more on a new connection.
    public func send(_ request: HTTPClientRequest) throws -> HTTPClientResponse {
        let wire = try Self.serialize(request)
        if let connection = takeIdle() {
            do {
                return try exchange(wire, bodyFile: request.bodyFile, isHead: request.method == "HEAD", on: connection)
            } catch let failure as ExchangeFailure {
                // Closed under us before a byte came back: the server dropped the idle connection, so
                // send again on a new one. Not after a timeout: the server is slow, not gone, and a
                // second wait would double the caller's.
                if case .timedOut = failure.error { throw failure.error }
                guard failure.nothingReceived else { throw failure.error }
            }
        }
        let connection = try HTTPConnection.open(host: host, port: port, timeout: settings.connectTimeout, tls: tls)
        do {
            return try exchange(wire, bodyFile: request.bodyFile, isHead: request.method == "HEAD", on: connection)
        } catch let failure as ExchangeFailure {
            throw failure.error
        }
    }

    /// Closes the idle connections (the pool refills on the next requests).
    public func closeIdleConnections() {
        lock.withLock { idle.removeAll() }
    }

    private struct ExchangeFailure: Error {
        let error: HTTPClientError
        let nothingReceived: Bool
    }

    private func exchange(_ wire: [UInt8], bodyFile: HTTPFileBody?, isHead: Bool,
                          on connection: HTTPConnection) throws -> HTTPClientResponse {
        let deadline = Monotonic.now() + settings.requestTimeout
        var reader = HTTPResponseReader(connection: connection, settings: settings, deadline: deadline)
        do {
            try connection.write(wire, until: deadline)
            try bodyFile?.send(on: connection, until: deadline)
            let (response, reusable) = try reader.read(isHead: isHead)
            if reusable { giveBack(connection) }
            return response
        } catch let error as HTTPClientError {
            throw ExchangeFailure(error: error, nothingReceived: reader.received == 0)
        }
    }

    private func takeIdle() -> HTTPConnection? {
        lock.withLock {
            let now = Monotonic.now()
            while let connection = idle.popLast() {
                if now - connection.idleSince < settings.maxIdleSeconds && connection.isQuiet() { return connection }
            }
            return nil
        }
    }

    private func giveBack(_ connection: HTTPConnection) {
        connection.idleSince = Monotonic.now()
        lock.withLock {
            if idle.count < settings.maxIdleConnections { idle.append(connection) }
        }
    }

    /// The request's bytes: request line, headers as given, `Content-Length` when there is a body (or
    /// the method sends one), blank line, body. Line breaks in any part are refused: they would let a
    /// key or a header value write headers of its own.
    static func serialize(_ request: HTTPClientRequest) throws -> [UInt8] {
        func clean(_ text: String, _ what: String) throws -> String {
            guard !text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                throw HTTPClientError.invalidRequest("a line break in the \(what)")
            }
            return text
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
            throw HTTPClientError.invalidRequest("method")
        }
        guard !request.target.isEmpty, !request.target.utf8.contains(where: { $0 <= 32 || $0 >= 127 }) else {
            throw HTTPClientError.invalidRequest("target: not encoded")
        }
        var head = "\(request.method) \(request.target) HTTP/1.1\r\n"
        for header in request.headers {
            head += "\(try clean(header.name, "header names")): \(try clean(header.value, "header values"))\r\n"
        }
        if request.bodyLength > 0 || request.method == "PUT" || request.method == "POST" {
            head += "Content-Length: \(request.bodyLength)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + request.body
    }
}
