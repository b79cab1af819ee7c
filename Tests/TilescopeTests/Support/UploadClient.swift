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

    private let connection: RawHTTP

    init(port: Int) throws {
        connection = try RawHTTP(port: port, timeoutSeconds: 60)
    }


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
            case .contentLength: open = connection.write(piece)
            case .chunked: open = connection.write(Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + [13, 10])
            }
        }
        if framing == .chunked && open { connection.write(Array("0\r\n\r\n".utf8)) }
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
        guard connection.write(bytes) else { throw TestFailure("send failed: \(String(cString: strerror(errno)))") }
    }

    private func readReply() throws -> Reply {
        let reply = try connection.readReply()
        return Reply(status: reply.status, headers: reply.headers, body: reply.body, sawContinue: false)
    }
}
