import Foundation
@testable import HTTPServer
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// Versioned tile URLs answered from `HotResponses` (in libmicrohttpd's access callback, without the
/// Swift request path) give exactly what the Swift path gives: the same bytes, the same headers in the
/// same order, the same 304s and HEADs, counted in the same metrics; any other spelling of a target,
/// a request with a body, or a repeated `If-None-Match` is left to the Swift path.
/// (A changed source never getting its old version's tiles: `PyramidMemoryCacheTests`.)
@Suite(.serialized) struct HotTileTests {
    static let width = 600, height = 400

    final class Fixture {
        let server: TestServer
        let version: String
        let level: Int
        init(label: String) throws {
            server = try TestServer(label: label) { folder in
                try TestImages.writePNG(width: HotTileTests.width, height: HotTileTests.height, to: folder + "/photo.png", seed: 3)
            }
            try server.waitUntilBuilt()
            version = try #require(server.get("/api/images/photo").json?["version"] as? String)
            level = Pyramid(width: HotTileTests.width, height: HotTileTests.height).maxLevel
        }
        func path(column: Int = 0, row: Int = 0) -> String {
            "/dzi/photo_files/\(level)/\(column)_\(row).jpeg?v=\(version)"
        }
        func file(column: Int = 0, row: Int = 0) throws -> [UInt8] {
            let path = "\(server.data)/pyramids/photo/\(version)/image_files/\(level)/\(column)_\(row).jpeg"
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        }
        func etag(column: Int = 0, row: Int = 0) -> String { "\"\(version)-\(level)-\(column)-\(row)\"" }
        /// A sample of /metrics whose line starts with `prefix` (name and labels), 0 if absent.
        func metric(_ prefix: String) throws -> Int {
            let text = try server.get("/metrics").text
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix + " ") }) else { return 0 }
            return try #require(Double(line.dropFirst(prefix.count + 1)).map { Int($0) })
        }
        func hotAnswers() throws -> Int { try metric("tilescope_hot_tiles_answered") }
        /// The sample once it reads `expected`, else its last reading after 5 s. Request counters are
        /// bumped when libmicrohttpd reports a request complete, which can come after the client has
        /// read the answer (and after a `/metrics` asked for on another connection).
        func metric(_ prefix: String, reaching expected: Int) throws -> Int {
            let deadline = Date().addingTimeInterval(5)
            var value = try metric(prefix)
            while value != expected, Date() < deadline {
                usleep(10_000)
                value = try metric(prefix)
            }
            return value
        }
        /// The sample once it has stopped changing (the same two readings 100 ms apart, within 5 s): a
        /// baseline taken while an earlier request's completion may still be counted.
        func settledMetric(_ prefix: String) throws -> Int {
            let deadline = Date().addingTimeInterval(5)
            var value = try metric(prefix)
            while Date() < deadline {
                usleep(100_000)
                let next = try metric(prefix)
                if next == value { break }
                value = next
            }
            return value
        }
    }

    /// The header lines without the two that differ between any two answers (`Date`, the measured `Server-Timing`).
    static func stableFields(_ reply: RawHTTP.Reply) -> [String] {
        reply.fields.filter { !["date", "server-timing"].contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
    }

    static func expectTiming(_ reply: RawHTTP.Reply) {
        let timing = reply.header("server-timing") ?? ""
        #expect(timing.range(of: #"^total;dur=[0-9]+\.[0-9]{3}$"#, options: .regularExpression) != nil, "Server-Timing: \(timing)")
        #expect(reply.fields.last?.name == "Server-Timing" || reply.fields.contains { $0.name == "Server-Timing" })
    }

    @Test func hotAnswersAreTheSwiftPathsAnswersByteForByte() throws {
        let fixture = try Fixture(label: "hot-same")
        let connection = try RawHTTP(port: fixture.server.port)
        let before = try fixture.hotAnswers()
        let slow = try connection.send("GET", fixture.path())
        #expect(try fixture.hotAnswers() == before)
        var hot: [RawHTTP.Reply] = []
        for _ in 0..<3 { hot.append(try connection.send("GET", fixture.path())) }
        #expect(try fixture.hotAnswers() == before + 3)
        let file = try fixture.file()
        #expect(slow.status == 200 && slow.body == file)
        #expect(slow.header("cache-control") == HTTPCaching.immutable)
        for reply in hot {
            #expect(reply.status == 200)
            #expect(reply.body == slow.body)
            #expect(Self.stableFields(reply) == Self.stableFields(slow))
            #expect(reply.fields.map(\.name) == slow.fields.map(\.name))  // the same order, Server-Timing included
            Self.expectTiming(reply)
        }
        Self.expectTiming(slow)
        #expect(!connection.isClosedByServer())  // keep-alive kept
    }

    @Test func conditionalAndHeadRequestsAreAnsweredAsTheSwiftPathAnswersThem() throws {
        let fixture = try Fixture(label: "hot-304")
        let etag = fixture.etag()
        let connection = try RawHTTP(port: fixture.server.port)
        // First from the Swift path (a 304 is never kept, and a HEAD never fills), then the GET that fills.
        let slow304 = try connection.send("GET", fixture.path(), headers: ["If-None-Match": etag])
        let slowHead = try connection.send("HEAD", fixture.path())
        let slow200 = try connection.send("GET", fixture.path())
        #expect(slow304.status == 304 && slowHead.status == 200 && slow200.status == 200)
        let before = try fixture.hotAnswers()
        let revalidationHits = try fixture.settledMetric("tilescope_cache_hits_total{cache=\"http_revalidation\"}")
        let revalidationMisses = try fixture.settledMetric("tilescope_cache_misses_total{cache=\"http_revalidation\"}")

        let cases: [(String, Int)] = [
            (etag, 304), ("W/" + etag, 304), ("\"other\", " + etag, 304), ("*", 304), (" \(etag) ", 304),
            ("\"other\"", 200), (String(etag.dropLast()) + "x\"", 200), ("W/\"other\",W/\"more\"", 200),
        ]
        for (header, status) in cases {
            let reply = try connection.send("GET", fixture.path(), headers: ["If-None-Match": header])
            #expect(reply.status == status, "If-None-Match: \(header)")
            let reference = status == 304 ? slow304 : slow200
            #expect(Self.stableFields(reply) == Self.stableFields(reference), "If-None-Match: \(header)")
            #expect(reply.body == reference.body)
            Self.expectTiming(reply)
        }
        let head = try connection.send("HEAD", fixture.path())
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(Self.stableFields(head) == Self.stableFields(slowHead))
        let size = try fixture.file().count
        #expect(head.header("content-length") == String(size))
        #expect(try fixture.hotAnswers() == before + cases.count + 1)
        let hitsName = "tilescope_cache_hits_total{cache=\"http_revalidation\"}"
        let missesName = "tilescope_cache_misses_total{cache=\"http_revalidation\"}"
        #expect(try fixture.metric(hitsName, reaching: revalidationHits + 5) == revalidationHits + 5)
        #expect(try fixture.metric(missesName, reaching: revalidationMisses + 3) == revalidationMisses + 3)
        #expect(!connection.isClosedByServer())
    }

    @Test func hotAnswersAreCountedInTheSameMetrics() throws {
        let fixture = try Fixture(label: "hot-metrics")
        let connection = try RawHTTP(port: fixture.server.port)
        _ = try connection.send("GET", fixture.path())  // fills
        let size = try fixture.file().count
        let names = (tiles: "tilescope_tiles_served_total",
                     ok: "tilescope_http_requests_total{route=\"dzi_tile\",code=\"200\"}",
                     notModified: "tilescope_http_requests_total{route=\"dzi_tile\",code=\"304\"}",
                     bytes: "tilescope_http_response_bytes_total{route=\"dzi_tile\"}",
                     durations: "tilescope_http_request_duration_seconds_count{route=\"dzi_tile\"}")
        // Baselines once the filling request's completion has been counted.
        let durations = try fixture.settledMetric(names.durations)
        let tiles = try fixture.settledMetric(names.tiles)
        let ok = try fixture.settledMetric(names.ok)
        let notModified = try fixture.settledMetric(names.notModified)
        let bytes = try fixture.settledMetric(names.bytes)
        let hot = try fixture.hotAnswers()
        for _ in 0..<5 { _ = try connection.send("GET", fixture.path()) }
        _ = try connection.send("HEAD", fixture.path())
        _ = try connection.send("GET", fixture.path(), headers: ["If-None-Match": fixture.etag()])
        #expect(try fixture.hotAnswers() == hot + 7)  // counted as each is looked up, before its answer goes out
        #expect(try fixture.metric(names.durations, reaching: durations + 7) == durations + 7)
        #expect(try fixture.metric(names.tiles, reaching: tiles + 5) == tiles + 5)  // HEAD and 304 are not tiles served
        #expect(try fixture.metric(names.ok, reaching: ok + 6) == ok + 6)
        #expect(try fixture.metric(names.notModified, reaching: notModified + 1) == notModified + 1)
        #expect(try fixture.metric(names.bytes, reaching: bytes + 5 * size) == bytes + 5 * size)
    }

    @Test func targetsSpeltOtherwiseBodiesAndRepeatedValidatorsTakeTheSwiftPath() throws {
        let fixture = try Fixture(label: "hot-hostile")
        let connection = try RawHTTP(port: fixture.server.port)
        let canonical = try connection.send("GET", fixture.path())  // fills
        let file = try fixture.file()
        let before = try fixture.hotAnswers()
        let v = fixture.version, level = fixture.level
        // Each answered by the Swift path exactly as before this table existed.
        let variants: [(String, Int)] = [
            ("/dzi/ph%6Fto_files/\(level)/0_0.jpeg?v=\(v)", 200),  // an escape in the id
            ("/dzi/photo_files/\(level)/00_0.jpeg?v=\(v)", 200),  // a leading zero
            ("/dzi/photo_files/\(level)/0_0.jpeg?v=\(v)&v=\(v)", 200),
            ("/dzi/photo_files/\(level)/0_0.jpeg?v=\(v)&x=1", 200),
            ("/dzi/photo_files/\(level)/0_0.jpeg?v=\(v.prefix(4))%\(v.dropFirst(4).prefix(0))", 400),  // malformed escape
            ("/dzi/photo_files/\(level)/0_0.jpeg?v=\(v)#x", 200),
            ("/dzi/photo_files/\(level)/0_0.jpeg", 200),  // unversioned: no-cache, never kept
            ("/dzi/photo_files/\(level)/0_0.jpeg?v=\(v)" + String(repeating: "&abcdefghij=0123456789", count: 50), 200),  // over the longest key
            ("//dzi/photo_files/\(level)/0_0.jpeg?v=\(v)", 0),  // whatever the Swift path says
            ("/dzi/photo_files/\(level)/0_0.jpeg?v=\(v)%00", 200),
        ]
        for (target, status) in variants {
            let reply = try connection.send("GET", target)
            if status == 200 && !target.contains("%00") {
                #expect(reply.status == 200, "\(target)")
                #expect(reply.body == file, "\(target)")
            } else if status != 200 && status != 0 {
                #expect(reply.status == status, "\(target) answered \(reply.status)")
            }
        }
        // A body on a GET (Content-Length): the Swift path reads it and answers.
        let withBody = try connection.send("GET", fixture.path(), body: Array("hello".utf8))
        #expect(withBody.status == 200 && withBody.body == file)
        // Two If-None-Match lines: the Swift path joins them (RFC 9110) and answers 304.
        let twice = try connection.exchange(Array(("GET \(fixture.path()) HTTP/1.1\r\nHost: x\r\n"
            + "If-None-Match: \"other\"\r\nIf-None-Match: \(fixture.etag())\r\n\r\n").utf8))
        #expect(twice.status == 304)
        // Non-ASCII in If-None-Match: the Swift path's trimming rules, not C's.
        let unicode = try connection.exchange(Array("GET \(fixture.path()) HTTP/1.1\r\nHost: x\r\nIf-None-Match: \u{00A0}\(fixture.etag())\r\n\r\n".utf8))
        #expect(unicode.status == 304 || unicode.status == 200)
        // Other methods on the same target.
        let post = try connection.send("POST", fixture.path())
        #expect(post.status == 405)
        let options = try connection.send("OPTIONS", fixture.path())
        #expect(options.status == 204)
        #expect(try fixture.hotAnswers() == before, "none of these may be answered from the table")
        // And the canonical target is still answered from it, on the same connection.
        let again = try connection.send("GET", fixture.path())
        #expect(again.body == canonical.body)
        #expect(try fixture.hotAnswers() == before + 1)
        #expect(!connection.isClosedByServer())
    }

    /// `/dzi/{id}/{version}_files/...` (what an unversioned descriptor leads viewers to) is kept too, and goes
    /// with its version: once the source changes, the old folder answers 404, never a kept answer.
    @Test func versionedFolderTilesAreKeptAndGoWithTheirVersion() throws {
        let fixture = try Fixture(label: "hot-folder")
        let path = "/dzi/photo/\(fixture.version)_files/\(fixture.level)/0_0.jpeg"
        let connection = try RawHTTP(port: fixture.server.port)
        let slow = try connection.send("GET", path)
        let before = try fixture.hotAnswers()
        let hot = try connection.send("GET", path)
        #expect(try fixture.hotAnswers() == before + 1)
        let file = try fixture.file()
        #expect(slow.status == 200 && slow.body == file && hot.status == 200 && hot.body == file)
        #expect(Self.stableFields(hot) == Self.stableFields(slow))
        #expect(hot.header("cache-control") == HTTPCaching.immutable)

        let server = fixture.server
        try TestImages.writePNG(width: Self.width, height: Self.height, to: server.images + "/.next.png", seed: 9)
        #expect(rename(server.images + "/.next.png", server.images + "/photo.png") == 0)
        server.service.sync.sync()
        #expect(server.service.library.record("photo")?.version != fixture.version)
        let hotBefore = try fixture.hotAnswers()
        #expect(try connection.send("GET", path).status != 200)
        try server.waitUntilBuilt()
        #expect(try RawHTTP(port: server.port).send("GET", path).status == 404)
        #expect(try fixture.hotAnswers() == hotBefore, "the old version's folder was answered from a kept answer")
    }

    /// The access log line of a hot answer is the one the Swift path writes for the same request.
    @Test func theAccessLogSeesTheSameRequest() throws {
        let target = "/dzi/a%20b_files/12/3_4.jpeg?v=0123abcd"
        let bytes = Array(target.utf8)
        let line = bytes.withUnsafeBytes { raw in
            let hot = HotExchange(status: 200, bytesSent: 1234, seconds: 0.001, completedNormally: true, isHead: false,
                                  hadIfNoneMatch: false, targetBytes: raw, connection: nil)
            return AccessLog(format: .json).line(hot.completed, route: "dzi_tile", at: timespec(tv_sec: 1_700_000_000, tv_nsec: 0))
        }
        let slow = CompletedExchange(
            request: Request(method: "GET", rawPath: "/dzi/a%20b_files/12/3_4.jpeg", query: ["v": "0123abcd"], clientAddress: "-"),
            status: 200, bytesSent: 1234, seconds: 0.001, completedNormally: true)
        #expect(line == AccessLog(format: .json).line(slow, route: "dzi_tile", at: timespec(tv_sec: 1_700_000_000, tv_nsec: 0)))
    }
}
