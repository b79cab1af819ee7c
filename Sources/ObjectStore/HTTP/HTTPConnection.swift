import CTLS
import CTLSShims
import Foundation

/// One keep-alive TCP connection, in clear or through TLS: a non-blocking socket whose every wait goes
/// through `poll` with what is left of a deadline, so no connect, handshake, read or write can outlive
/// its timeout.
final class HTTPConnection {
    let descriptor: Int32
    /// When it was last handed back idle (monotonic seconds).
    var idleSince: Double = 0
    /// Bytes read past the end of an answer (none with one request at a time; kept for the reader).
    var pending: [UInt8] = []
    /// The TLS session over the socket (nil: clear text).
    private var tls: OpaquePointer?

    /// Over a descriptor already connected (the fuzz target reads canned bytes through a socket pair).
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        if let tls { SSL_free(tls) }
        close(descriptor)
    }

    /// Connects to `host:port`, trying each address the name resolves to, within `timeout` seconds.
    /// Name resolution itself (getaddrinfo) has no timeout of its own: endpoints are addresses or names
    /// the local resolver answers at once.
    static func open(host: String, port: Int, timeout: Double, tls: TLSContext? = nil) throws -> HTTPConnection {
        let deadline = Monotonic.now() + timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw HTTPClientError.connectFailed("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let address = cursor {
            cursor = address.pointee.ai_next
            let socket = Foundation.socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socket >= 0 else { lastError = Self.errnoText(); continue }
            let connection = HTTPConnection(descriptor: socket)
            if connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { lastError = Self.errnoText(); continue }
                try connection.wait(for: Int16(POLLOUT), until: deadline, phase: "connecting to \(host):\(port)")
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
                guard error == 0 else { lastError = String(cString: strerror(error)); continue }
            }
            // Small requests and answers: waiting to coalesce them (Nagle) would add delay to each.
            var on: Int32 = 1
            setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            if let tls { try connection.startTLS(tls, host: host, until: deadline) }
            return connection
        }
        throw HTTPClientError.connectFailed("\(host):\(port): \(lastError)")
    }

    /// Writes all of `bytes` before `deadline`.
    func write(_ bytes: [UInt8], until deadline: Double) throws {
        if let tls { return try writeTLS(tls, bytes, until: deadline) }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 { offset += sent; continue }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                _ = try wait(for: Int16(POLLOUT), until: deadline, phase: "sending the request")
                continue
            }
            if sent < 0 && errno == EINTR { continue }
            throw HTTPClientError.connectionClosed
        }
    }

    /// Reads what is there (at most `limit` bytes), waiting until `deadline`; empty at end of stream.
    func read(limit: Int, until deadline: Double) throws -> [UInt8] {
        if !pending.isEmpty {
            let taken = Array(pending.prefix(limit))
            pending.removeFirst(taken.count)
            return taken
        }
        var buffer = [UInt8](repeating: 0, count: limit)
        if let tls { return try readTLS(tls, into: &buffer, until: deadline) }
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress!, limit, 0) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                _ = try wait(for: Int16(POLLIN), until: deadline, phase: "waiting for the answer")
                continue
            }
            if errno == EINTR { continue }
            throw HTTPClientError.connectionClosed
        }
    }

    /// Whether an idle connection still looks usable: nothing to read (a readable idle connection
    /// was closed by the server, or holds bytes nobody asked for).
    func isQuiet() -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0 && pending.isEmpty && (tls.map { SSL_pending($0) == 0 } ?? true)
    }

    /// Waits for `events`; throws `timedOut` at the deadline. False if the socket reported an error.
    // MARK: TLS

    /// The handshake: SNI and name check for a host name, an IP address check for an address literal.
    private func startTLS(_ context: TLSContext, host: String, until deadline: Double) throws {
        guard let session = SSL_new(context.context) else { throw HTTPClientError.tlsFailed("SSL_new: \(TLSContext.lastError())") }
        tls = session
        SSL_set_fd(session, descriptor)
        var address = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        if isAddress {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session), host) == 1 else {
                throw HTTPClientError.tlsFailed("cannot check the address \(host)")
            }
        } else {
            guard ts_tls_set_server_name(session, host) == 1, SSL_set1_host(session, host) == 1 else {
                throw HTTPClientError.tlsFailed("cannot check the name \(host)")
            }
        }
        while true {
            let result = SSL_connect(session)
            if result == 1 { return }
            let error = SSL_get_error(session, result)
            if error == SSL_ERROR_WANT_READ { try wait(for: Int16(POLLIN), until: deadline, phase: "in the TLS handshake"); continue }
            if error == SSL_ERROR_WANT_WRITE { try wait(for: Int16(POLLOUT), until: deadline, phase: "in the TLS handshake"); continue }
            let verified = SSL_get_verify_result(session)
            if verified != X509_V_OK {
                ERR_clear_error()
                throw HTTPClientError.tlsFailed("certificate of \(host): \(String(cString: X509_verify_cert_error_string(verified)))")
            }
            throw HTTPClientError.tlsFailed("handshake with \(host): \(TLSContext.lastError())")
        }
    }

    private func writeTLS(_ session: OpaquePointer, _ bytes: [UInt8], until deadline: Double) throws {
        var offset = 0
        while offset < bytes.count {
            let chunk = Int32(min(bytes.count - offset, 1 << 30))
            let written = bytes.withUnsafeBytes { SSL_write(session, $0.baseAddress! + offset, chunk) }
            if written > 0 { offset += Int(written); continue }
            let error = SSL_get_error(session, written)
            if error == SSL_ERROR_WANT_WRITE { try wait(for: Int16(POLLOUT), until: deadline, phase: "sending the request"); continue }
            if error == SSL_ERROR_WANT_READ { try wait(for: Int16(POLLIN), until: deadline, phase: "sending the request"); continue }
            ERR_clear_error()
            throw HTTPClientError.connectionClosed
        }
    }

    /// Empty at the end of the stream (a TLS close or the connection closed).
    private func readTLS(_ session: OpaquePointer, into buffer: inout [UInt8], until deadline: Double) throws -> [UInt8] {
        while true {
            let count = buffer.withUnsafeMutableBytes { SSL_read(session, $0.baseAddress!, Int32($0.count)) }
            if count > 0 { return Array(buffer[0..<Int(count)]) }
            let error = SSL_get_error(session, count)
            if error == SSL_ERROR_WANT_READ { try wait(for: Int16(POLLIN), until: deadline, phase: "waiting for the answer"); continue }
            if error == SSL_ERROR_WANT_WRITE { try wait(for: Int16(POLLOUT), until: deadline, phase: "waiting for the answer"); continue }
            ERR_clear_error()
            if error == SSL_ERROR_ZERO_RETURN || error == SSL_ERROR_SYSCALL { return [] }
            throw HTTPClientError.connectionClosed
        }
    }

    @discardableResult
    private func wait(for events: Int16, until deadline: Double, phase: String) throws -> Bool {
        while true {
            let left = deadline - Monotonic.now()
            guard left > 0 else { throw HTTPClientError.timedOut(phase) }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, Double(Int32.max))) + 1)
            if ready > 0 { return entry.revents & Int16(POLLERR | POLLNVAL) == 0 || entry.revents & events != 0 }
            if ready < 0 && errno != EINTR { throw HTTPClientError.connectionClosed }
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Seconds on the monotonic clock: deadlines that wall-clock changes cannot move.
enum Monotonic {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
