import Foundation
@testable import HTTPServer
import TestSupport
import Testing
@testable import Tilescope

/// The access log: one parseable line per request on stdout, in either format, and quiet when asked.
@Suite(.serialized) struct OpsAccessLogTests {
    /// host ident user [day/Mon/year:h:m:s zone] "request line" status bytes
    nonisolated(unsafe) static let common = try! Regex(
        #"^(\S+) - - \[(\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} \+0000)\] "([^"]*)" (\d{3}) (\d+|-)$"#)

    static func exchange(method: String = "GET", path: String, query: [String: String] = [:], status: Int = 200,
                         bytes: Int = 1234, headers: [String: String] = [:]) -> CompletedExchange {
        CompletedExchange(request: Request(method: method, rawPath: path, query: query, headers: headers,
                                           clientAddress: "10.1.2.3"),
                          status: status, bytesSent: bytes, seconds: 0.0025, completedNormally: true)
    }

    /// 2026-11-29 19:00:05.123 UTC
    static let time = timespec(tv_sec: 1_795_978_805, tv_nsec: 123_000_000)

    @Test func commonLogFormatLine() throws {
        let line = AccessLog(format: .common).line(
            Self.exchange(path: "/dzi/photo_files/9/0_0.jpeg", query: ["v": "abc"]), route: "dzi_tile", at: Self.time)
        #expect(line == #"10.1.2.3 - - [29/Nov/2026:19:00:05 +0000] "GET /dzi/photo_files/9/0_0.jpeg?v=abc HTTP/1.1" 200 1234"#)
        #expect(line.wholeMatch(of: Self.common) != nil)
        let empty = AccessLog(format: .common).line(Self.exchange(method: "HEAD", path: "/", bytes: 0), route: "static",
                                                    at: Self.time)
        #expect(empty.hasSuffix("\"HEAD / HTTP/1.1\" 200 -"))
    }

    @Test func jsonLine() throws {
        let line = AccessLog(format: .json).line(
            Self.exchange(path: "/api/images", query: ["page": "2", "q": "a b&c"], status: 404, bytes: 80,
                          headers: ["user-agent": "curl/8 \"x\"", "referer": "http://h/"]),
            route: "image_list", at: Self.time)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["time"] as? String == "2026-11-29T19:00:05.123Z")
        #expect(json["remote"] as? String == "10.1.2.3")
        #expect(json["method"] as? String == "GET")
        #expect(json["path"] as? String == "/api/images")
        #expect(json["query"] as? String == "page=2&q=a%20b%26c")
        #expect(json["route"] as? String == "image_list")
        #expect(json["status"] as? Int == 404)
        #expect(json["bytes"] as? Int == 80)
        #expect(json["duration_ms"] as? Double == 2.5)
        #expect(json["completed"] as? Bool == true)
        #expect(json["user_agent"] as? String == "curl/8 \"x\"")
        #expect(json["referer"] as? String == "http://h/")
    }

    @Test func hostileRequestLinesStayOneLine() throws {
        let path = "/a\"b\\c\nd\u{1}é"
        let common = AccessLog(format: .common).line(Self.exchange(path: path), route: "static", at: Self.time)
        #expect(!common.contains("\n"))
        #expect(common.contains(#""GET /a\x22b\x5cc\x0ad\x01é HTTP/1.1""#))
        #expect(common.wholeMatch(of: Self.common) != nil)
        let json = AccessLog(format: .json).line(Self.exchange(path: path), route: "static", at: Self.time)
        #expect(!json.contains("\n"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(parsed["path"] as? String == path)
    }

    static func images(_ label: String) throws -> (images: String, data: String) {
        let root = try TestImages.folder(label)
        try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        try TestImages.writePNG(width: 300, height: 200, to: root + "/images/photo.png")
        return (root + "/images", root + "/data")
    }

    @Test func realServerWritesCommonLogLinesOnStdout() throws {
        let (images, data) = try Self.images("ops-log-common")
        let server = try ServerProcess(images: images, data: data)
        #expect(try RawHTTP.get(server.port, "/api/images?x=1").status == 200)
        #expect(try RawHTTP.get(server.port, "/no-such-file.js").status == 404)
        // Start-up polls of /healthz and /readyz come first; every line has the format.
        let end = Date().addingTimeInterval(5)
        // Lines are written as requests complete, which may be after the client has its answer.
        while !(server.stdout.contains("/no-such-file.js") && server.stdout.contains("/api/images?x=1")) && Date() < end {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let all = server.stdoutLines
        for line in all { #expect(line.wholeMatch(of: Self.common) != nil, "\(line)") }
        let lines = all.filter { !$0.contains("/healthz") && !$0.contains("/readyz") }
        #expect(lines.count == 2)
        // Each request's line is written when it completes, so their order is not guaranteed.
        let first = try #require(lines.first { $0.contains("/api/images") }?.wholeMatch(of: Self.common))
        #expect(first.output[1].substring == "127.0.0.1")
        #expect(first.output[3].substring == "GET /api/images?x=1 HTTP/1.1")
        #expect(first.output[4].substring == "200")
        let second = try #require(lines.first { $0.contains("/no-such-file.js") }?.wholeMatch(of: Self.common))
        #expect(second.output[3].substring == "GET /no-such-file.js HTTP/1.1")
        #expect(second.output[4].substring == "404")
        // Messages go to stderr, never into the access log.
        #expect(server.stderr.contains("tilescope: serving 0 images"))  // a first start: listed by the scan after
        #expect(server.stderr.contains("done: 1 images"))
        #expect(!server.stdout.contains("tilescope:"))
        #expect(!server.stderr.contains("GET /"))
    }

    @Test func realServerWritesJSONLinesWhenAsked() throws {
        let (images, data) = try Self.images("ops-log-json")
        let server = try ServerProcess(images: images, data: data, environment: ["TILESCOPE_LOG_FORMAT": "json"])
        #expect(try RawHTTP.get(server.port, "/healthz", headers: ["User-Agent": "ops-test"]).status == 200)
        let end = Date().addingTimeInterval(5)  // the line is written when the request completes
        while !server.stdout.contains("ops-test") && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        let lines = server.stdoutLines.filter { $0.contains("ops-test") }
        let first = try #require(lines.first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(json["path"] as? String == "/healthz")
        #expect(json["route"] as? String == "healthz")
        #expect(json["status"] as? Int == 200)
        #expect(json["user_agent"] as? String == "ops-test")
        #expect((json["bytes"] as? Int ?? 0) > 0)
        // Every line the server wrote is JSON, the start-up polls included.
        for line in server.stdoutLines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil) }
    }

    @Test func quietSilencesTheAccessLogAndInfoLines() throws {
        let (images, data) = try Self.images("ops-log-quiet")
        let server = try ServerProcess(images: images, data: data, extra: ["--quiet"])
        #expect(try RawHTTP.get(server.port, "/api/images").status == 200)
        // After the exit every line the request could have made is written: then check there is none.
        server.signal(SIGTERM)
        #expect(try server.waitForExit() == 0)
        #expect(server.stdout.isEmpty)
        #expect(!server.stderr.contains("serving"))
        #expect(server.stderr.isEmpty)
    }

    @Test func badLogFormatIsAUsageError() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.executable)
        process.arguments = ["serve", "--log-format", "xml"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "tilescope: error: log format must be common or json, not 'xml'\n")
    }
}
