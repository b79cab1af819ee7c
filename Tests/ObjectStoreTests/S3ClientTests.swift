import Foundation
import ObjectStore
import TestSupport
import XCTest

/// The S3 client against a real SeaweedFS (Tests/TestSupport/SeaweedServer.swift) with an identity
/// configured: objects, ranges, listings, conditional creation, and the errors callers must tell apart.
final class S3ClientTests: XCTestCase {
    func testPutGetHeadDeleteRoundTripWithBinaryBodies() throws {
        let client = try S3Store.freshClient()
        let body = S3Store.binary(300_000)
        // A space, a plus, a dollar, non-ASCII and slashes: encoded once in the path, signed so.
        let key = "pyramids/a b/tile+0_0 é$.bin"
        guard case .stored(let etag) = try client.putObject(key, body: body, contentType: "application/octet-stream") else {
            return XCTFail("not stored")
        }
        XCTAssertNotNil(etag)
        let object = try client.getObject(key)
        XCTAssertTrue(object.body == body, "the body read differs from the one written")
        XCTAssertEqual(object.info.size, body.count)
        XCTAssertNil(object.range)
        let info = try client.headObject(key)
        XCTAssertEqual(info.size, body.count)
        XCTAssertEqual(info.etag, object.info.etag)

        // An empty object too.
        XCTAssertEqual(try client.putObject("empty", body: []), .stored(etag: try client.headObject("empty").etag))
        XCTAssertEqual(try client.getObject("empty").body, [])

        try client.deleteObject(key)
        XCTAssertThrowsError(try client.getObject(key)) { error in
            XCTAssertEqual((error as? S3Error)?.status, 404)
            XCTAssertEqual((error as? S3Error)?.code, "NoSuchKey")
            XCTAssertEqual((error as? S3Error)?.isRetryable, false)
        }
        XCTAssertThrowsError(try client.headObject(key)) { error in
            XCTAssertEqual((error as? S3Error)?.status, 404, "\(error)")
        }
        // Deleting what is not there is not an error (S3 answers 204).
        XCTAssertNoThrow(try client.deleteObject(key))
    }

    func testRangeGet() throws {
        let client = try S3Store.freshClient()
        let body = S3Store.binary(10_000, seed: 7)
        _ = try client.putObject("ranged", body: body)
        let part = try client.getObject("ranged", range: 100...1_123)
        XCTAssertTrue(part.body == Array(body[100...1_123]), "the range's bytes differ")
        XCTAssertEqual(part.range, 100...1_123)
        XCTAssertEqual(part.info.size, body.count, "the whole object's size, from Content-Range")
        let tail = try client.getObject("ranged", range: 9_990...20_000)
        XCTAssertTrue(tail.body == Array(body[9_990...]), "a range past the end gives what there is")
        XCTAssertThrowsError(try client.getObject("ranged", range: 20_000...20_010)) { error in
            XCTAssertEqual((error as? S3Error)?.status, 416, "\(error)")
        }
    }

    func testListingAcrossSeveralPages() throws {
        let client = try S3Store.freshClient()
        let wanted = (0..<23).map { String(format: "p/k%02d", $0) }
        for key in wanted + ["other/a", "other/b", "q"] { _ = try client.putObject(key, body: Array(key.utf8)) }

        var listed: [S3ListedObject] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try client.listObjects(prefix: "p/", continuationToken: token, maxKeys: 5)
            XCTAssertLessThanOrEqual(page.objects.count, 5)
            listed += page.objects
            token = page.nextContinuationToken
            pages += 1
        } while token != nil && pages < 20
        XCTAssertEqual(pages, 5)
        XCTAssertEqual(listed.map(\.key), wanted)
        XCTAssertEqual(listed.first?.size, 5)

        let after = try client.listObjects(prefix: "p/", startAfter: "p/k19", maxKeys: 100)
        XCTAssertEqual(after.objects.map(\.key), ["p/k20", "p/k21", "p/k22"])
        XCTAssertNil(after.nextContinuationToken)

        let top = try client.listObjects(delimiter: "/")
        XCTAssertEqual(top.commonPrefixes.sorted(), ["other/", "p/"])
        XCTAssertEqual(top.objects.map(\.key), ["q"])
    }

    /// One client, its connection pool shared by 8 threads writing and reading their own keys: every
    /// body read back is the one written (no answer read on the wrong connection or by the wrong thread).
    func testThreadsShareOneClient() throws {
        let client = try S3Store.freshClient()
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<40 {
                let key = "threads/\(thread)/\(round)"
                let body = S3Store.binary(1_000 + thread * 997 + round * 13, seed: UInt64(thread * 1_000 + round))
                do {
                    _ = try client.putObject(key, body: body)
                    let read = try client.getObject(key)
                    if read.body != body { failures.add("\(key): other bytes") }
                    if try client.headObject(key).size != body.count { failures.add("\(key): other size") }
                } catch {
                    failures.add("\(key): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.all(), [])
        var listed = 0
        var token: String?
        repeat {
            let page = try client.listObjects(prefix: "threads/", continuationToken: token)
            listed += page.objects.count
            token = page.nextContinuationToken
        } while token != nil
        XCTAssertEqual(listed, 8 * 40)
    }

    func testConditionalPutRefusesAnExistingKey() throws {
        let client = try S3Store.freshClient()
        XCTAssertNotEqual(try client.putObject("manifest.json", body: Array("first".utf8), ifNoneMatch: true), .alreadyExists)
        XCTAssertEqual(try client.putObject("manifest.json", body: Array("second".utf8), ifNoneMatch: true), .alreadyExists)
        XCTAssertEqual(try client.getObject("manifest.json").body, Array("first".utf8))
    }

    /// The publish primitive of issue 40: of 16 writers racing to create one key, exactly one wins,
    /// and the object holds the winner's bytes.
    func testExactlyOneOfSixteenConcurrentConditionalPutsWins() throws {
        let client = try S3Store.freshClient()
        for round in 0..<3 {
            let key = "race-\(round)/manifest.json"
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 16) { writer in
                let outcome = Result { try client.putObject(key, body: Array("writer \(writer)".utf8), ifNoneMatch: true) }
                results.add(writer, outcome)
            }
            let outcomes = results.all()
            XCTAssertEqual(outcomes.count, 16)
            let winners = outcomes.filter { if case .success(.stored) = $0.1 { return true } else { return false } }
            let losers = outcomes.filter { if case .success(.alreadyExists) = $0.1 { return true } else { return false } }
            XCTAssertEqual(winners.count, 1, "round \(round): \(outcomes)")
            XCTAssertEqual(losers.count, 15, "round \(round): \(outcomes)")
            if let winner = winners.first {
                XCTAssertEqual(try client.getObject(key).body, Array("writer \(winner.0)".utf8))
            }
        }
    }

    func testWrongSecretIsRefusedWithATypedError() throws {
        let good = try S3Store.freshClient()
        _ = try good.putObject("k", body: [1, 2, 3])
        let bad = try S3Store.client(of: try SeaweedServer.shared(), bucket: good.settings.bucket, secret: "not-the-secret")
        for call in [{ _ = try bad.getObject("k") }, { _ = try bad.putObject("k2", body: [4]) }, { _ = try bad.listObjects() }] {
            XCTAssertThrowsError(try call()) { error in
                guard let error = error as? S3Error else { return XCTFail("\(error)") }
                XCTAssertEqual(error.status, 403, "\(error)")
                XCTAssertFalse(error.isRetryable)
                XCTAssertFalse("\(error)".contains("not-the-secret"), "\(error)")
            }
        }
        XCTAssertThrowsError(try good.headObject("k2"), "the refused PUT wrote nothing")
    }

    /// Without a signature nothing is read or written: proof the server checks signatures at all (so the
    /// tests above prove ours right, not merely accepted).
    func testUnsignedRequestsAreRefused() throws {
        let server = try SeaweedServer.shared()
        let client = try S3Store.freshClient()
        _ = try client.putObject("secret.bin", body: [9, 9, 9])
        let bucket = client.settings.bucket
        let read = try Self.raw(server, "GET", "/\(bucket)/secret.bin")
        XCTAssertEqual(read.status, 403, read.text)
        XCTAssertFalse(read.body == [9, 9, 9])
        let write = try Self.raw(server, "PUT", "/\(bucket)/planted.bin", body: [1, 2, 3])
        XCTAssertEqual(write.status, 403, write.text)
        XCTAssertThrowsError(try client.headObject("planted.bin"))
        let list = try Self.raw(server, "GET", "/\(bucket)?list-type=2")
        XCTAssertEqual(list.status, 403, list.text)
    }

    /// A presigned URL is fetched with no credentials at all, and stops working once altered.
    func testPresignedURLWorksWithoutCredentials() throws {
        let server = try SeaweedServer.shared()
        let client = try S3Store.freshClient()
        let body = S3Store.binary(5_000, seed: 3)
        _ = try client.putObject("shared/tile 1.jpg", body: body)
        let url = try client.presignedURL("shared/tile 1.jpg", expires: 300)
        let target = String(url.dropFirst("http://127.0.0.1:\(server.s3Port)".count))
        let reply = try Self.raw(server, "GET", target)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertTrue(reply.body == body, "the presigned GET's body differs")
        let tampered = target.replacingOccurrences(of: "X-Amz-Expires=300", with: "X-Amz-Expires=301")
        let refused = try Self.raw(server, "GET", tampered)
        XCTAssertEqual(refused.status, 403, refused.text)
    }

    func testMissingBucketGivesItsTypedError() throws {
        let client = try S3Store.freshClient(create: false)
        XCTAssertThrowsError(try client.getObject("anything")) { error in
            XCTAssertEqual((error as? S3Error)?.code, "NoSuchBucket", "\(error)")
            XCTAssertEqual((error as? S3Error)?.status, 404)
            XCTAssertEqual((error as? S3Error)?.isRetryable, false)
        }
        XCTAssertThrowsError(try client.listObjects()) { error in
            XCTAssertEqual((error as? S3Error)?.code, "NoSuchBucket", "\(error)")
        }
    }

    func testBucketCreateIsIdempotentAndDeleteNeedsItEmpty() throws {
        let client = try S3Store.freshClient()
        XCTAssertNoThrow(try client.createBucket())
        _ = try client.putObject("k", body: [1])
        XCTAssertThrowsError(try client.deleteBucket()) { error in
            XCTAssertEqual((error as? S3Error)?.code, "BucketNotEmpty", "\(error)")
        }
        try client.deleteObject("k")
        XCTAssertNoThrow(try client.deleteBucket())
    }

    /// A stopped store is a retryable error at once (connection refused), never a hang.
    func testStoppedServerGivesARetryableErrorWithinTheTimeout() throws {
        let server = try SeaweedServer.standalone()
        var http = HTTPClientSettings()
        http.connectTimeout = 2
        http.requestTimeout = 5
        let client = try S3Store.client(of: server, bucket: "stopping", http: http)
        try client.createBucket()
        _ = try client.putObject("k", body: [1, 2, 3])
        XCTAssertEqual(try client.getObject("k").body, [1, 2, 3])
        server.stop()
        let started = Date()
        XCTAssertThrowsError(try client.getObject("k")) { error in
            guard let error = error as? S3Error, case .transport = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.isRetryable, "\(error)")
        }
        // Refused at once on loopback; the bound (the connect timeout plus the request timeout, with room
        // for a loaded machine) only tells a hang from an answer.
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
    }
}

extension S3ClientTests {
    /// A request with no signature, its bytes exactly as written here (RawHTTP.send adds a Host of its own).
    static func raw(_ server: SeaweedServer, _ method: String, _ target: String, body: [UInt8] = []) throws -> RawHTTP.Reply {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.s3Port)\r\n"
        if method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        return try RawHTTP(port: server.s3Port).exchange(Array((head + "\r\n").utf8) + body)
    }
}

/// Failures gathered from concurrent threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.withLock { messages.append(message) } }
    func all() -> [String] { lock.withLock { messages } }
}

/// Outcomes gathered from concurrent writers.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [(Int, Result<S3PutResult, any Error>)] = []
    func add(_ writer: Int, _ outcome: Result<S3PutResult, any Error>) { lock.withLock { outcomes.append((writer, outcome)) } }
    func all() -> [(Int, Result<S3PutResult, any Error>)] { lock.withLock { outcomes } }
}
