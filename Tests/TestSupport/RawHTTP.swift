import Foundation

/// A minimal HTTP/1.1 client over a plain socket, so tests send paths byte for byte
/// (no client-side normalisation of "..", "%2F" or NUL) and can reuse one connection.
public final class RawHTTP {
    public struct Reply {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        /// Every header line in the order sent, names as sent (`headers` keeps the last of each name).
        public var fields: [(name: String, value: String)] = []
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    private let socket: Int32
    private var buffer: [UInt8] = []

    /// `source`: the loopback address to connect from (any of 127.0.0.0/8), so a test can be several clients.
    public init(port: Int, timeoutSeconds: Int = 30, from source: String? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw TestFailure("cannot bind to \(source)") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw TestFailure("cannot connect to port \(port)") }
    }

    deinit { close(socket) }

    /// One request/response exchange on this connection.
    public func send(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        guard write(Array(head.utf8) + body) else { throw TestFailure("send failed") }
        return try readReply(isHead: method == "HEAD")
    }

    /// Sends exact bytes; false if the server closed the connection first.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Sends exact bytes (stopping quietly if the server closes first) and reads the final
    /// response, skipping any `100 Continue`.
    public func exchange(_ bytes: [UInt8]) throws -> Reply {
        write(bytes)
        while true {
            let reply = try readReply()
            if reply.status != 100 { return reply }
        }
    }

    /// True if the server closed the connection (a read returns end of file).
    public func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    /// Reads one response (an interim `100 Continue` counts as one, without a body).
    public func readReply(isHead: Bool = false) throws -> Reply {
        let headerEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("bad status line: \(head)") }
        var headers: [String: String] = [:]
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[line[..<colon].lowercased()] = value
            fields.append((String(line[..<colon]), value))
        }
        var length = Int(headers["content-length"] ?? "0") ?? 0
        if isHead || status == 304 || status == 204 || status == 100 { length = 0 }
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Reply(status: status, headers: headers, body: body, fields: fields)
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        while true {
            if buffer.count >= marker.count {
                for i in 0...(buffer.count - marker.count) where Array(buffer[i..<i + marker.count]) == marker { return i }
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(socket, &chunk, chunk.count, 0)
        guard n > 0 else { throw TestFailure("connection closed or timed out") }
        buffer += chunk[..<n]
    }

    /// A one-off request on a fresh connection.
    public static func get(_ port: Int, _ path: String, headers: [String: String] = [:]) throws -> Reply {
        try RawHTTP(port: port).send("GET", path, headers: headers)
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
