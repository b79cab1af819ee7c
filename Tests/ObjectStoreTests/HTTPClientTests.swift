import Foundation
@testable import ObjectStore
import XCTest

/// The HTTP client against peers that misbehave: every failure a typed error within its bound, no
/// crash, no hang, no unbounded read.
final class HTTPClientTests: XCTestCase {
    func send(_ answer: String, settings: HTTPClientSettings = HTTPClientSettings(), method: String = "GET") throws -> HTTPClientResponse {
        let peer = try CannedHTTPPeer(answer: Array(answer.utf8))
        defer { peer.stop() }
        return try HTTPClient(host: "127.0.0.1", port: peer.port, settings: settings)
            .send(HTTPClientRequest(method: method, target: "/x", headers: [("Host", "127.0.0.1")]))
    }

    func assertFails(_ answer: String, settings: HTTPClientSettings = HTTPClientSettings(), with expected: HTTPClientError,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try send(answer, settings: settings), file: file, line: line) { error in
            XCTAssertEqual(error as? HTTPClientError, expected, file: file, line: line)
        }
    }

    func testContentLengthAndChunkedBodies() throws {
        let plain = try send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"abc\"\r\n\r\nhello")
        XCTAssertEqual(plain.status, 200)
        XCTAssertEqual(plain.body, Array("hello".utf8))
        XCTAssertEqual(plain.header("etag"), "\"abc\"")
        let chunked = try send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n")
        XCTAssertEqual(chunked.body, Array("hello world".utf8))
        let untilClose = try send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end")
        XCTAssertEqual(untilClose.body, Array("to the end".utf8))
        let continued = try send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
        XCTAssertEqual(continued.status, 204)
        let head = try send("HTTP/1.1 200 OK\r\nContent-Length: 999\r\n\r\n", method: "HEAD")
        XCTAssertEqual(head.body, [], "HEAD's Content-Length describes a body that is not sent")
    }

    func testMalformedAnswersAreTypedErrors() {
        assertFails("SMTP ready\r\n\r\n", with: .malformedResponse("bad status line"))
        assertFails("HTTP/1.1 2000 OK\r\n\r\n", with: .malformedResponse("bad status line"))
        assertFails("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", with: .malformedResponse("bad header line"))
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", with: .malformedResponse("Content-Length is not a number"))
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", with: .malformedResponse("Content-Length is not a number"))
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", with: .malformedResponse("bad chunk size"))
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n", with: .malformedResponse("chunk longer than its size"))
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", with: .malformedResponse("unsupported Transfer-Encoding"))
    }

    func testShortBodiesAndSilenceAreRetryable() {
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this", with: .connectionClosed)
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort", with: .connectionClosed)
        assertFails("", with: .connectionClosed)
        XCTAssertTrue(HTTPClientError.connectionClosed.isRetryable)
    }

    func testSizesOverTheirLimitsAreRefusedUnread() {
        var small = HTTPClientSettings()
        small.maxBodyBytes = 1_000
        small.maxHeadBytes = 200
        // A declared length over the limit is refused before a byte of the body is read.
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", settings: small, with: .responseTooLarge(limit: 1_000))
        assertFails("HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n", settings: small, with: .responseTooLarge(limit: 1_000))
        assertFails("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n" + String(repeating: "a", count: 1001) + "\r\n0\r\n\r\n",
                    settings: small, with: .responseTooLarge(limit: 1_000))
        assertFails("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + String(repeating: "b", count: 5_000), settings: small,
                    with: .responseTooLarge(limit: 1_000))
        assertFails("HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "c", count: 500) + "\r\n\r\n", settings: small,
                    with: .responseTooLarge(limit: 200))
        XCTAssertFalse(HTTPClientError.responseTooLarge(limit: 1).isRetryable)
    }

    /// A server that accepts and never answers costs the request timeout, then a retryable error.
    func testAStalledServerTimesOut() throws {
        let peer = try CannedHTTPPeer(answer: nil)
        defer { peer.stop() }
        var settings = HTTPClientSettings()
        settings.requestTimeout = 0.5
        let started = Date()
        XCTAssertThrowsError(try HTTPClient(host: "127.0.0.1", port: peer.port, settings: settings)
            .send(HTTPClientRequest(method: "GET", target: "/", headers: []))) { error in
            XCTAssertEqual(error as? HTTPClientError, .timedOut("waiting for the answer"))
            XCTAssertTrue((error as? HTTPClientError)?.isRetryable == true)
        }
        // Not a timing check (the machine is noisy): a bound twenty times the timeout, against a hang.
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testNothingListeningIsARetryableConnectError() throws {
        // A port bound and closed again without listening: nothing listens there.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        close(probe)
        let port = Int(UInt16(bigEndian: address.sin_port))
        XCTAssertThrowsError(try HTTPClient(host: "127.0.0.1", port: port)
            .send(HTTPClientRequest(method: "GET", target: "/", headers: []))) { error in
            guard case .connectFailed = error as? HTTPClientError else { return XCTFail("\(error)") }
            XCTAssertTrue((error as? HTTPClientError)?.isRetryable == true)
        }
    }

    /// Keep-alive: answers framed by length leave the connection open, and the next request reuses it.
    func testKeepAliveConnectionsAreReused() throws {
        let peer = try CannedHTTPPeer(answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), closeAfterAnswer: false)
        defer { peer.stop() }
        let client = try HTTPClient(host: "127.0.0.1", port: peer.port)
        for _ in 0..<20 {
            XCTAssertEqual(try client.send(HTTPClientRequest(method: "GET", target: "/", headers: [])).body, Array("ok".utf8))
        }
        XCTAssertEqual(peer.connections, 1)
    }

    /// A connection the server closed while idle is noticed, and the request goes out on a new one.
    func testAConnectionClosedWhileIdleIsReplaced() throws {
        let peer = try CannedHTTPPeer(answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), closeAfterAnswer: true)
        defer { peer.stop() }
        let client = try HTTPClient(host: "127.0.0.1", port: peer.port)
        for _ in 0..<5 {
            XCTAssertEqual(try client.send(HTTPClientRequest(method: "GET", target: "/", headers: [])).body, Array("ok".utf8))
        }
        XCTAssertEqual(peer.connections, 5)
    }

    func testLineBreaksCannotInjectHeaders() throws {
        let client = try HTTPClient(host: "127.0.0.1", port: 9)
        XCTAssertThrowsError(try client.send(HTTPClientRequest(method: "GET", target: "/", headers: [("X-A", "1\r\nX-B: 2")])))
        XCTAssertThrowsError(try client.send(HTTPClientRequest(method: "GET", target: "/a b", headers: [])))
    }
}
