import Foundation
import ObjectStore
import XCTest

/// AWS's published SigV4 test suite (Fixtures/aws4_testsuite): every case's canonical request, string
/// to sign and Authorization header, with the generic (non-S3) path rules the suite is written for.
///
/// All 34 cases run, including the four botocore skips (get-space, whose request line its HTTP parser
/// refuses, and three with a repeated query name, which its SDK cannot express): ours can.
/// post-sts-header-after signs without the token, which is added after signing; S3 always signs
/// the token (`x-amz-security-token`), which get-vanilla-with-session-token and
/// post-sts-header-before check.
final class SigV4TestSuiteTests: XCTestCase {
    static let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/aws4_testsuite").path
    static let timestamp = SigV4Timestamp(amzDate: "20150830T123600Z")!

    func testEveryCaseOfTheSuite() throws {
        let cases = try Self.caseFolders()
        XCTAssertEqual(cases.count, 34, "the suite's cases: \(cases)")
        for folder in cases {
            let name = (folder as NSString).lastPathComponent
            let base = folder + "/" + name
            let raw = try String(contentsOfFile: base + ".req", encoding: .utf8)
            let expectedCanonical = try String(contentsOfFile: base + ".creq", encoding: .utf8).replacingOccurrences(of: "\r", with: "")
            let expectedToSign = try String(contentsOfFile: base + ".sts", encoding: .utf8).replacingOccurrences(of: "\r", with: "")
            let expectedAuthorization = try String(contentsOfFile: base + ".authz", encoding: .utf8).replacingOccurrences(of: "\r", with: "")

            // The token, when the case signs one, is the one its canonical request shows (as botocore does).
            let token = expectedCanonical.split(separator: "\n").first { $0.hasPrefix("x-amz-security-token:") }
                .map { String($0.dropFirst("x-amz-security-token:".count)) }
            let signer = SigV4Signer(credentials: SigV4Credentials(accessKeyID: "AKIDEXAMPLE",
                                                                   secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                                                   sessionToken: token),
                                     region: "us-east-1", service: "service", pathRules: .generic)
            var request = try XCTUnwrap(Self.parse(raw), name)
            signer.sign(&request, at: Self.timestamp)
            var withoutAuthorization = request
            withoutAuthorization.headers.removeAll { $0.name == "Authorization" }
            let canonical = signer.canonicalRequest(withoutAuthorization)
            XCTAssertEqual(canonical, expectedCanonical, "\(name): canonical request")
            XCTAssertEqual(signer.stringToSign(canonicalRequest: canonical, timestamp: Self.timestamp), expectedToSign,
                           "\(name): string to sign")
            XCTAssertEqual(request.header("Authorization"), expectedAuthorization, "\(name): Authorization")
        }
    }

    /// Folders holding a `.req` of their own name, in name order.
    static func caseFolders() throws -> [String] {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: suite)
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix(".req") { found.append(suite + "/" + (relative as NSString).deletingLastPathComponent) }
        }
        return found.sorted()
    }

    /// A `.req` file: request line (the path may hold spaces: everything up to the last " HTTP/"),
    /// headers (a line starting with white space continues the previous value), blank line, body.
    static func parse(_ raw: String) -> SigV4Request? {
        let normalized = raw.replacingOccurrences(of: "\r\n", with: "\n")
        let parts = normalized.components(separatedBy: "\n\n")
        var lines = parts[0].components(separatedBy: "\n")
        let body = parts.dropFirst().joined(separator: "\n\n")
        let requestLine = lines.removeFirst()
        guard let space = requestLine.firstIndex(of: " "), let version = requestLine.range(of: " HTTP/", options: .backwards) else { return nil }
        let method = String(requestLine[..<space])
        let target = String(requestLine[requestLine.index(after: space)..<version.lowerBound])
        var path = target
        var query: [(name: String, value: String)] = []
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query.append((SigV4Encoding.percentDecode(String(pieces[0])),
                              SigV4Encoding.percentDecode(pieces.count > 1 ? String(pieces[1]) : "")))
            }
        }
        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t", !headers.isEmpty {
                headers[headers.count - 1].value += "\n" + line
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
        }
        return SigV4Request(method: method, path: path, query: query, headers: headers,
                            payloadHash: SHA256.hexHash(Array(body.utf8)))
    }
}
