import Foundation
@testable import ObjectStore
import XCTest

/// Retries: how many sends a retryable failure gets, and that conditional PUTs get one only. Against a
/// loopback peer that always answers 503 SlowDown (a real store cannot be made to on demand), and the
/// real SeaweedFS stopped.
final class S3RetryTests: XCTestCase {
    static let slowDownBody = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
    static let slowDown = "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: \(slowDownBody.utf8.count)\r\n\r\n"
        + slowDownBody

    func client(port: Int, retries: S3RetryPolicy) throws -> S3Client {
        var settings = try S3Settings(endpoint: "http://127.0.0.1:\(port)", region: "us-east-1", bucket: "busy",
                                      credentials: SigV4Credentials(accessKeyID: "AKID", secretAccessKey: "secret"))
        settings.retries = retries
        return try S3Client(settings: settings)
    }

    func testRetryableAnswersAreSentAgainUpToTheLimit() throws {
        let peer = try CannedHTTPPeer(answer: Array(Self.slowDown.utf8), closeAfterAnswer: false)
        defer { peer.stop() }
        let client = try client(port: peer.port, retries: S3RetryPolicy(maxAttempts: 4, baseDelay: 0.01, maxDelay: 0.05))
        XCTAssertThrowsError(try client.getObject("k")) { error in
            XCTAssertEqual((error as? S3Error)?.code, "SlowDown", "\(error)")
            XCTAssertEqual((error as? S3Error)?.isRetryable, true)
        }
        XCTAssertEqual(peer.requests, 4)
        // A conditional create is sent once: a lost answer would make a retry report the winner as a loser.
        XCTAssertThrowsError(try client.putObject("manifest", body: [1], ifNoneMatch: true))
        XCTAssertEqual(peer.requests, 5)
        _ = try? self.client(port: peer.port, retries: .none).headObject("k")
        XCTAssertEqual(peer.requests, 6)
    }

    func testNotRetryableAnswersAreSentOnce() throws {
        let denied = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"
        let peer = try CannedHTTPPeer(answer: Array(denied.utf8), closeAfterAnswer: false)
        defer { peer.stop() }
        XCTAssertThrowsError(try client(port: peer.port, retries: S3RetryPolicy(maxAttempts: 5)).getObject("k"))
        XCTAssertEqual(peer.requests, 1)
    }

    func testBackoffStaysWithinItsCeiling() {
        let policy = S3RetryPolicy(maxAttempts: 10, baseDelay: 0.1, maxDelay: 0.5)
        for attempt in 2...10 {
            let ceiling = min(0.5, 0.1 * pow(2, Double(attempt - 2)))
            for _ in 0..<50 {
                let delay = policy.delay(beforeAttempt: attempt)
                XCTAssertTrue(delay >= 0 && delay <= ceiling, "attempt \(attempt): \(delay)")
            }
        }
        XCTAssertEqual(S3RetryPolicy(maxAttempts: 0).maxAttempts, 1)
    }
}
