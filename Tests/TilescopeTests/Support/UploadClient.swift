import Foundation
import TestSupport

/// An HTTP/1.1 client for uploads over a plain socket: sends the body in pieces, as
/// Content-Length or chunked, optionally waiting for `100 Continue` first, so tests see exactly
/// what the server does before, during and after a body.
final class UploadClient {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// True if the server answered `100 Continue` before its final status.
        var sawContinue: Bool
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers[name.lowercased()] }
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    enum Framing { case contentLength, chunked }

    private let socket: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw TestFailure("cannot connect to port \(port)") }
    }

    deinit { close(socket) }

    /// Sends one request. With `expectContinue`, the body goes only after `100 Continue`; a final
    /// status instead means the body was refused unread (then it is never sent).
    /// `declaredLength` overrides the Content-Length header (to declare more than is sent).
    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8],
              framing: Framing = .contentLength, expectContinue: Bool = false, declaredLength: Int? = nil,
              pieceSize: Int = 64 * 1024) throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        switch framing {
        case .contentLength: head += "Content-Length: \(declaredLength ?? body.count)\r\n"
        case .chunked: head += "Transfer-Encoding: chunked\r\n"
        }
        if expectContinue { head += "Expect: 100-continue\r\n" }
        try write(Array((head + "\r\n").utf8))
        var sawContinue = false
        if expectContinue {
            let first = try readReply()
            guard first.status == 100 else { return first }
            sawContinue = true
        }
        // A server may answer and close before the body is all sent (413 up front): stop sending
        // then, as browsers and curl do, and read its answer.
        var offset = 0
        var open = true
        while offset < body.count && open {
            let piece = Array(body[offset..<min(body.count, offset + pieceSize)])
            offset += piece.count
            switch framing {
            case .contentLength: open = write(piece, tolerant: true)
            case .chunked: open = write(Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [13, 10], tolerant: true)
            }
        }
        if framing == .chunked && open { _ = write(Array("0\r\n\r\n".utf8), tolerant: true) }
        var reply = try readReply()
        reply.sawContinue = sawContinue
        return reply
    }

    /// A GET on the same connection (to check it stayed usable).
    func get(_ path: String) throws -> Reply {
        try write(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        return try readReply()
    }

    private func write(_ bytes: [UInt8]) throws {
        guard write(bytes, tolerant: true) else { throw TestFailure("send failed: \(String(cString: strerror(errno)))") }
    }

    /// False if the server closed the connection.
    private func write(_ bytes: [UInt8], tolerant: Bool) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    private func readReply() throws -> Reply {
        let headerEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("bad status line: \(head)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = status == 100 || status == 204 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Reply(status: status, headers: headers, body: body, sawContinue: false)
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
}
