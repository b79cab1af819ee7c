import ObjectStore
import XCTest

/// Endpoints, buckets and addressing: what is accepted, what is refused before any request.
final class S3SettingsTests: XCTestCase {
    let credentials = SigV4Credentials(accessKeyID: "AKID", secretAccessKey: "secret")

    func settings(_ endpoint: String, bucket: String = "tiles", addressing: S3Settings.Addressing = .path) throws -> S3Settings {
        try S3Settings(endpoint: endpoint, region: "eu-west-1", bucket: bucket, addressing: addressing, credentials: credentials)
    }

    func testEndpointsAndHostHeaders() throws {
        let local = try settings("http://127.0.0.1:8333")
        XCTAssertEqual(local.endpointHost, "127.0.0.1")
        XCTAssertEqual(local.endpointPort, 8333)
        XCTAssertEqual(local.hostHeader, "127.0.0.1:8333")
        XCTAssertEqual(local.path(of: "a/b c"), "/tiles/a/b c")
        XCTAssertEqual(local.path(of: nil), "/tiles")
        let named = try settings("http://s3.example.org/", addressing: .virtualHost)
        XCTAssertEqual(named.endpointPort, 80)
        XCTAssertEqual(named.hostHeader, "tiles.s3.example.org")
        XCTAssertEqual(named.path(of: "k"), "/k")
        XCTAssertEqual(named.path(of: nil), "/")
        let secure = try settings("https://s3.eu-west-1.amazonaws.com", addressing: .virtualHost)
        XCTAssertTrue(secure.useTLS)
        XCTAssertEqual(secure.endpointPort, 443)
        XCTAssertEqual(secure.hostHeader, "tiles.s3.eu-west-1.amazonaws.com")
        XCTAssertEqual(try settings("https://127.0.0.1:8443").hostHeader, "127.0.0.1:8443")
        XCTAssertFalse(local.useTLS)
        let six = try settings("http://[::1]:9000")
        XCTAssertEqual(six.endpointHost, "::1")
        XCTAssertEqual(six.hostHeader, "[::1]:9000")
    }

    func testRefusedSettings() {
        for endpoint in ["ftp://x", "https://", "https://host/path", "http://", "http://host/path", "http://user@host",
                         "http://host:0", "http://host:99999", "http://host:port", "127.0.0.1:8333"] {
            XCTAssertThrowsError(try settings(endpoint), endpoint) { error in
                guard case .invalidArgument = error as? S3Error else { return XCTFail("\(endpoint): \(error)") }
            }
        }
        for bucket in ["", "ab", "UPPER", "has space", "-dash", "dot.", String(repeating: "a", count: 64), "under_score"] {
            XCTAssertThrowsError(try settings("http://h:1", bucket: bucket), bucket)
        }
        XCTAssertNoThrow(try settings("http://h:1", bucket: "my.bucket-01"))
        for region in ["", "US-EAST-1", "eu west", "a/b", "<x>"] {
            XCTAssertThrowsError(try S3Settings(endpoint: "http://h:1", region: region, bucket: "tiles", credentials: credentials), region)
        }
    }

    /// A key is refused before sending when S3 would refuse it: empty or over 1024 bytes.
    func testKeysOutOfBoundsAreRefusedBeforeSending() throws {
        let client = try S3Client(settings: try settings("http://127.0.0.1:9"))
        for key in ["", String(repeating: "k", count: 1025)] {
            XCTAssertThrowsError(try client.getObject(key)) { error in
                guard case .invalidArgument = error as? S3Error else { return XCTFail("\(error)") }
            }
        }
    }

    func testCredentialsFromTheEnvironment() {
        XCTAssertNil(SigV4Credentials.fromEnvironment([:]))
        XCTAssertNil(SigV4Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a"]))
        let plain = SigV4Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": ""])
        XCTAssertEqual(plain?.accessKeyID, "a")
        XCTAssertNil(plain?.sessionToken)
        XCTAssertEqual(SigV4Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "s",
                                                         "AWS_SESSION_TOKEN": "t"])?.sessionToken, "t")
    }
}
