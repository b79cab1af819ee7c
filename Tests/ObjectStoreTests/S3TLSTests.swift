import Foundation
import ObjectStore
import TestSupport
import XCTest

/// https endpoints, against SeaweedFS's TLS gateway with a certificate from a test authority: the
/// same calls work, and a certificate not signed by a trusted authority is refused (not retryable).
final class S3TLSTests: XCTestCase {
    func testCallsOverTLS() throws {
        let client = try S3Store.tlsClient(bucket: "tls-\(UInt64.random(in: 0...UInt64.max))")
        try client.createBucket()
        let body = S3Store.binary(200_000, seed: 11)
        _ = try client.putObject("over/tls.bin", body: body)
        XCTAssertTrue(try client.getObject("over/tls.bin").body == body, "other bytes over TLS")
        XCTAssertTrue(try client.getObject("over/tls.bin", range: 10...99).body == Array(body[10...99]))
        XCTAssertEqual(try client.headObject("over/tls.bin").size, body.count)
        XCTAssertEqual(try client.listObjects(prefix: "over/").objects.map(\.key), ["over/tls.bin"])
        XCTAssertEqual(try client.putObject("over/tls.bin", body: [1], ifNoneMatch: true), .alreadyExists)
        XCTAssertTrue(try client.presignedURL("over/tls.bin", expires: 60).hasPrefix("https://127.0.0.1:"))
        // Keep-alive over TLS: many calls, all answered.
        for _ in 0..<20 { XCTAssertEqual(try client.headObject("over/tls.bin").size, body.count) }
    }

    func testAnUntrustedCertificateIsRefused() throws {
        // The system's authorities do not know the test authority.
        let server = try SeaweedServer.shared()
        let client = try S3Client(settings: try S3Settings(
            endpoint: server.tlsEndpoint, region: server.region, bucket: "anything",
            credentials: SigV4Credentials(accessKeyID: server.accessKey, secretAccessKey: server.secretKey)))
        XCTAssertThrowsError(try client.listObjects()) { error in
            guard let error = error as? S3Error, case .transport(.tlsFailed(let why)) = error else { return XCTFail("\(error)") }
            XCTAssertFalse(error.isRetryable)
            XCTAssertTrue(why.contains("certificate"), why)
        }
    }

    func testAMissingAuthoritiesFileIsRefusedAtOnce() throws {
        let server = try SeaweedServer.shared()
        XCTAssertThrowsError(try S3Client(settings: try S3Settings(
            endpoint: server.tlsEndpoint, region: server.region, bucket: "anything",
            credentials: SigV4Credentials(accessKeyID: "a", secretAccessKey: "s"), certificateAuthorities: "/nonexistent/ca.pem")))
    }
}
