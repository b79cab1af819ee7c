import Foundation
import HTTPServer
import TestSupport
import Testing

/// Streamed request bodies (`HTTPHandler.bodyHandling` + `BodySink`) through a real server on a
/// loopback port: chunks arrive in order and whole, limits hold up front and mid-stream, refusals
/// are answered, and keep-alive survives a streamed body.
@Suite(.serialized) struct BodySinkTests {
    /// Counts and hashes what it receives; answers with the count and a digest.
    final class CountingSink: BodySink, @unchecked Sendable {
        let maxBytes: Int
        let refuseAfter: Int?
        let events: Events
        var count = 0
        var digest: UInt64 = 14_695_981_039_346_656_037

        init(maxBytes: Int, refuseAfter: Int?, events: Events) {
            self.maxBytes = maxBytes
            self.refuseAfter = refuseAfter
            self.events = events
        }

        func write(_ chunk: UnsafeRawBufferPointer) -> Response? {
            for byte in chunk { digest = (digest ^ UInt64(byte)) &* 1_099_511_628_211 }
            count += chunk.count
            if let refuseAfter, count > refuseAfter { return Response(status: 422, body: .bytes(Array("refused".utf8))) }
            return nil
        }

        func finish(_ request: Request) -> Reply {
            events.append("finish \(count)")
            let text = "\(count) \(digest)"
            return .later { Response(status: 200, body: .bytes(Array(text.utf8))) }
        }

        func abort() { events.append("abort \(count)") }
    }

    final class Events: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [String] = []
        func append(_ event: String) { lock.withLock { list.append(event) } }
        var all: [String] { lock.withLock { list } }
    }

    struct Handler: HTTPHandler {
        let events: Events
        func bodyHandling(for request: Request) -> BodyHandling {
            switch request.rawPath {
            case "/stream": .stream(CountingSink(maxBytes: 100_000, refuseAfter: nil, events: events))
            case "/picky": .stream(CountingSink(maxBytes: 100_000, refuseAfter: 1000, events: events))
            case "/refuse": .refuse(Response(status: 403, body: .bytes(Array("no".utf8))))
            default: .buffer
            }
        }
        func handle(_ request: Request) -> Reply {
            .now(Response(status: 200, body: .bytes(Array("buffered \(request.body.count)".utf8))))
        }
    }

    static func digest(_ bytes: [UInt8]) -> UInt64 {
        var digest: UInt64 = 14_695_981_039_346_656_037
        for byte in bytes { digest = (digest ^ UInt64(byte)) &* 1_099_511_628_211 }
        return digest
    }

    static func start(_ events: Events) throws -> Server {
        let server = Server(options: ServerOptions(host: "127.0.0.1", port: 0, maxBodyBytes: 10_000), handler: Handler(events: events))
        try server.start()
        return server
    }

    static func chunked(_ body: [UInt8], piece: Int) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + piece)
            out += Array((String(end - offset, radix: 16) + "\r\n").utf8) + body[offset..<end] + [13, 10]
            offset = end
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    @Test func chunkedBodyStreamsWholeAndKeepAliveSurvives() throws {
        let events = Events()
        let server = try Self.start(events)
        defer { server.stop(deadline: 1) }
        let body = (0..<90_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let client = try RawHTTP(port: server.port, timeoutSeconds: 20)
        let reply = try client.exchange(Array("POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                                        + Self.chunked(body, piece: 777))
        #expect(reply.status == 200)
        #expect(reply.text == "90000 \(Self.digest(body))")
        #expect(reply.headers["connection"]?.lowercased() != "close")
        let second = try client.exchange(Array("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello".utf8))
        #expect(second.text == "5 \(Self.digest(Array("hello".utf8)))")
        #expect(events.all == ["finish 90000", "finish 5"])
    }

    @Test func limitsHoldUpFrontAndWhileStreaming() throws {
        let events = Events()
        let server = try Self.start(events)
        defer { server.stop(deadline: 1) }
        // Declared too large: 413 at once, no "100 Continue", the sink is told to abort.
        let early = try RawHTTP(port: server.port, timeoutSeconds: 20).exchange(
            Array("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 100001\r\nExpect: 100-continue\r\n\r\n".utf8))
        #expect(early.status == 413)
        // Chunked past the limit: the body is read to its end and answered 413 (not dropped unanswered).
        let body = [UInt8](repeating: 1, count: 150_000)
        let late = try RawHTTP(port: server.port, timeoutSeconds: 20).exchange(
            Array("POST /stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + Self.chunked(body, piece: 4096))
        #expect(late.status == 413)
        // The sink refusing mid-body gets its own response through.
        let picky = try RawHTTP(port: server.port, timeoutSeconds: 20).exchange(
            Array("POST /picky HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + Self.chunked(body, piece: 4096))
        #expect(picky.status == 422)
        #expect(picky.text == "refused")
        // The buffered path has the same mid-body behaviour with its own limit.
        let buffered = try RawHTTP(port: server.port, timeoutSeconds: 20).exchange(
            Array("POST /other HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + Self.chunked(body, piece: 4096))
        #expect(buffered.status == 413)
        let small = try RawHTTP(port: server.port, timeoutSeconds: 20).exchange(
            Array("POST /other HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc".utf8))
        #expect(small.text == "buffered 3")
        let aborts = events.all.filter { $0.hasPrefix("abort") }
        #expect(aborts.count == 3)
        #expect(!events.all.contains { $0.hasPrefix("finish") })
    }

    @Test func refusalWithoutABodyKeepsTheConnection() throws {
        let server = try Self.start(Events())
        defer { server.stop(deadline: 1) }
        let client = try RawHTTP(port: server.port, timeoutSeconds: 20)
        let refused = try client.exchange(Array("GET /refuse HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(refused.status == 403)
        #expect(refused.headers["connection"]?.lowercased() != "close")
        #expect(try client.exchange(Array("GET /other HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).text == "buffered 0")
        // With a body it is answered before the body is read, and the connection closes.
        let withBody = try RawHTTP(port: server.port, timeoutSeconds: 20).exchange(
            Array("POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n".utf8))
        #expect(withBody.status == 403)
    }
}
