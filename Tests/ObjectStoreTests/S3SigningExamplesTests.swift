import ObjectStore
import XCTest

/// S3's own signing rules, checked against the worked examples of the S3 API Reference ("Examples:
/// Signature Calculations in AWS Signature Version 4" and "Authenticating Requests: Using Query
/// Parameters"): example key AKIAIOSFODNN7EXAMPLE, bucket examplebucket, 2013-05-24T00:00:00Z, us-east-1.
/// They cover what the generic test suite cannot: `x-amz-content-sha256` signed, a key encoded once
/// (`$` -> `%24`), a subresource with no value (`?lifecycle` -> `lifecycle=`), and a presigned URL.
final class S3SigningExamplesTests: XCTestCase {
    let signer = SigV4Signer(credentials: SigV4Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                                           secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                             region: "us-east-1")
    let timestamp = SigV4Timestamp(amzDate: "20130524T000000Z")!
    let host = "examplebucket.s3.amazonaws.com"

    func testGetObjectWithRange() {
        var request = SigV4Request(method: "GET", path: "/test.txt", headers: [("Host", host), ("Range", "bytes=0-9")],
                                   payloadHash: SigV4Signer.emptyPayloadHash)
        signer.sign(&request, at: timestamp)
        var unsigned = request
        unsigned.headers.removeAll { $0.name == "Authorization" }
        XCTAssertEqual(signer.canonicalRequest(unsigned), """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        XCTAssertEqual(signer.stringToSign(canonicalRequest: signer.canonicalRequest(unsigned), timestamp: timestamp), """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        XCTAssertEqual(request.header("Authorization"),
                       "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                       + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                       + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    func testPutObject() {
        let body = Array("Welcome to Amazon S3.".utf8)
        let payloadHash = SHA256.hexHash(body)
        XCTAssertEqual(payloadHash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        var request = SigV4Request(method: "PUT", path: "/test$file.text",
                                   headers: [("Host", host), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                                             ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
                                   payloadHash: payloadHash)
        signer.sign(&request, at: timestamp)
        XCTAssertEqual(signer.canonicalURI(request.path), "/test%24file.text")
        XCTAssertEqual(Self.signature(request), "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
        XCTAssertEqual(Self.signedHeaders(request), "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class")
    }

    func testGetBucketLifecycle() {
        var request = SigV4Request(method: "GET", path: "/", query: [("lifecycle", "")], headers: [("Host", host)],
                                   payloadHash: SigV4Signer.emptyPayloadHash)
        signer.sign(&request, at: timestamp)
        XCTAssertEqual(signer.canonicalQuery(request.query), "lifecycle=")
        XCTAssertEqual(Self.signature(request), "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    func testListObjects() {
        var request = SigV4Request(method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
                                   headers: [("Host", host)], payloadHash: SigV4Signer.emptyPayloadHash)
        signer.sign(&request, at: timestamp)
        XCTAssertEqual(signer.canonicalQuery(request.query), "max-keys=2&prefix=J")
        XCTAssertEqual(Self.signature(request), "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    func testPresignedURL() {
        let query = signer.presignedQuery(method: "GET", path: "/test.txt", host: host, expires: 86400, at: timestamp)
        XCTAssertEqual(query, "X-Amz-Algorithm=AWS4-HMAC-SHA256"
                       + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                       + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                       + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    /// A session token is signed: as `x-amz-security-token` in headers, `X-Amz-Security-Token` in a presigned URL.
    func testSessionTokenIsSigned() {
        let withToken = SigV4Signer(credentials: SigV4Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                                                  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                                                  sessionToken: "token/with+chars="),
                                    region: "us-east-1")
        var request = SigV4Request(method: "GET", path: "/test.txt", headers: [("Host", host)], payloadHash: SigV4Signer.unsignedPayload)
        withToken.sign(&request, at: timestamp)
        XCTAssertEqual(request.header("x-amz-security-token"), "token/with+chars=")
        XCTAssertEqual(Self.signedHeaders(request), "host;x-amz-content-sha256;x-amz-date;x-amz-security-token")
        let query = withToken.presignedQuery(method: "GET", path: "/test.txt", host: host, expires: 60, at: timestamp)
        XCTAssertTrue(query.contains("&X-Amz-Security-Token=token%2Fwith%2Bchars%3D&X-Amz-SignedHeaders=host&"), query)
    }

    /// Keys are signed as they are: no dot-segment or double-slash removal (unlike the generic rules).
    func testS3PathsAreNotNormalized() {
        XCTAssertEqual(signer.canonicalURI("/my-object//example//photo.user"), "/my-object//example//photo.user")
        XCTAssertEqual(signer.canonicalURI("/a/../b/./c d+é"), "/a/../b/./c%20d%2B%C3%A9")
    }

    func testCredentialsNeverShowTheSecret() {
        let credentials = SigV4Credentials(accessKeyID: "AKID", secretAccessKey: "very-secret", sessionToken: "also-secret")
        for shown in ["\(credentials)", String(reflecting: credentials)] {
            XCTAssertFalse(shown.contains("very-secret") || shown.contains("also-secret"), shown)
        }
    }

    static func signature(_ request: SigV4Request) -> String? {
        request.header("Authorization")?.components(separatedBy: "Signature=").last
    }

    static func signedHeaders(_ request: SigV4Request) -> String? {
        request.header("Authorization")?.components(separatedBy: "SignedHeaders=").last?.components(separatedBy: ",").first
    }
}
