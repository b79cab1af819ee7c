@testable import ObjectStore
import XCTest

/// The XML parser of S3's answers: what S3 sends, and hostile documents refused with an error.
final class XMLDocumentParserTests: XCTestCase {
    func testAListingAnswer() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><IsTruncated>true</IsTruncated>
            <Contents><Key>a &amp; b &lt;c&gt; &#233;&#x263A;</Key><Size>12</Size><ETag>&quot;e1&quot;</ETag></Contents>
            <!-- a comment --><Contents><Key> spaced </Key><Size>0</Size></Contents><Empty/>
            <NextContinuationToken>tok</NextContinuationToken></ListBucketResult>
            """
        let root = try XMLDocumentParser.parse(Array(xml.utf8))
        XCTAssertEqual(root.name, "ListBucketResult")
        XCTAssertEqual(root.children("Contents").map { $0.text(of: "Key") }, ["a & b <c> é☺", " spaced "])
        XCTAssertEqual(root.child("Contents")?.text(of: "ETag"), "\"e1\"")
        XCTAssertNotNil(root.child("Empty"))
        XCTAssertEqual(root.text(of: "NextContinuationToken"), "tok")
    }

    func testHostileOrBrokenDocumentsAreErrors() {
        let bad = [
            "", "   ", "text only", "<a>", "<a></b>", "<a><b></a></b>", "</a>", "<a></a><b></b>", "<a>&unknown;</a>",
            "<a>&#xFFFFFFFF;</a>", "<a>&amp</a>", "<!DOCTYPE a [<!ENTITY x \"xx\">]><a>&x;</a>", "<a><!-- open</a>",
            "<a><![CDATA[open</a>", "<?xml", "<>", "<a", String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100),
        ]
        for text in bad {
            XCTAssertThrowsError(try XMLDocumentParser.parse(Array(text.utf8)), "accepted: \(text.prefix(40))")
        }
        // Arbitrary bytes: an error or a tree, never a crash.
        var state: UInt64 = 42
        for length in stride(from: 0, to: 2_000, by: 7) {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Array("<>/&;!?ab =\"'#x".utf8)[Int(state >> 60) % 15]
            }
            _ = try? XMLDocumentParser.parse(bytes)
        }
    }

    func error(_ status: Int, _ body: [UInt8]) -> S3Error {
        S3Error.from(HTTPClientResponse(status: status, headers: [], body: body))
    }

    func testS3ErrorBodiesBecomeTypedErrors() throws {
        let body = Array("<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Reduce your rate</Message><RequestId>r1</RequestId></Error>".utf8)
        let slowDown = error(503, body)
        XCTAssertEqual(slowDown, .service(status: 503, code: "SlowDown", message: "Reduce your rate", requestID: "r1"))
        XCTAssertTrue(slowDown.isRetryable)
        XCTAssertFalse(error(403, Array("<Error><Code>AccessDenied</Code></Error>".utf8)).isRetryable)
        XCTAssertFalse(error(404, []).isRetryable)
        XCTAssertEqual(error(404, []).code, "NotFound")
        XCTAssertTrue(error(500, Array("not xml <<".utf8)).isRetryable)
        XCTAssertEqual(error(500, Array("not xml <<".utf8)).code, "HTTP500")
    }
}
