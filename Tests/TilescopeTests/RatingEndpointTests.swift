import Foundation
import TestSupport
import Imaging
import Testing
import Catalog
@testable import Tilescope

/// `PUT /api/images/{id}/rating` and `GET /api/images?sort=` over real HTTP, against a real
/// SQLite catalog in the server's data folder.
@Suite(.serialized) struct RatingEndpointTests {
    // The images are written before the server (which starts libvips) exists.
    init() throws { try Vips.start() }

    static func server(_ label: String, names: [String] = ["alpha.png", "beta.png", "gamma.png"]) throws -> TestServer {
        try TestServer(label: label) { folder in
            for (index, name) in names.enumerated() {
                try TestImages.writePNG(width: 40 + index, height: 30, to: folder + "/" + name, seed: index)
            }
        }
    }

    static func millisecond(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    static func rate(_ port: Int, _ id: String, _ body: String) throws -> RawHTTP.Reply {
        try RawHTTP(port: port).send("PUT", "/api/images/\(id)/rating", headers: ["Content-Type": "application/json"],
                                     body: Array(body.utf8))
    }

    @Test func ratingRoundTripsThroughEveryImageJSON() throws {
        let server = try Self.server("rate-roundtrip")
        #expect(try server.get("/api/images/beta").json?["rating"] is NSNull)
        #expect(try server.get("/api/images/beta").json?["ratingAverage"] is NSNull)
        #expect(try server.get("/api/images/beta").json?["ratingCount"] as? Int == 0)
        let viewer = TestViewer(address: "127.0.0.1")
        let reply = try viewer.rate(server.port, "beta", 7)
        #expect(reply.status == 200)
        #expect(reply.json?["id"] as? String == "beta")
        #expect(reply.json?["rating"] as? Int == 7)
        #expect(reply.json?["ratingAverage"] as? Double == 7 && reply.json?["ratingCount"] as? Int == 1)
        #expect(viewer.cookie != nil)
        #expect(try viewer.get(server.port, "/api/images/beta").json?["rating"] as? Int == 7)
        // Without the cookie: not this viewer's rating, but everyone's average and count.
        #expect(try server.get("/api/images/beta").json?["rating"] is NSNull)
        #expect(try server.get("/api/images/beta").json?["ratingAverage"] as? Double == 7)
        let list = try #require(try viewer.get(server.port, "/api/images").json?["images"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! String, $0["rating"]) })
        #expect(byID["beta"] as? Int == 7)
        #expect(byID["alpha"] is NSNull && byID["gamma"] is NSNull)
        // Re-rating replaces; 0 and 10 are the ends of the scale.
        func rate(_ body: String) throws -> RawHTTP.Reply {
            try viewer.send(server.port, "PUT", "/api/images/beta/rating", headers: ["Content-Type": "application/json"],
                            body: Array(body.utf8))
        }
        #expect(try rate(#"{"rating": 0}"#).json?["rating"] as? Int == 0)
        #expect(try rate(#"{"rating": 10, "note": "ignored"}"#).json?["rating"] as? Int == 10)
        // A whole number however written; a field the endpoint does not read may repeat, as it may appear at all.
        #expect(try rate(#"{"rating": 0.6e1}"#).json?["rating"] as? Int == 6)
        #expect(try rate(#"{"rating": 800e-2}"#).json?["rating"] as? Int == 8)
        #expect(try rate(#"{"rating": -0}"#).json?["rating"] as? Int == 0)
        let last = try rate(#"{"note": 1, "rating": 10, "note": 2}"#)
        #expect(last.json?["rating"] as? Int == 10 && last.json?["ratingCount"] as? Int == 1)  // one viewer, re-rating
        #expect(last.header("set-cookie") == nil)  // the viewer already has a valid cookie
        let id = try #require(viewer.id.flatMap { ViewerID(hex: $0) })
        #expect(try server.service.ratings.summaries(for: ["beta"], viewer: id)["beta"] == RatingSummary(own: 10, total: 10, count: 1))
    }

    @Test(arguments: [
        ("", "not valid JSON"),
        ("{", "not valid JSON"),
        ("nope", "not valid JSON"),
        ("[7]", "must be a JSON object"),
        ("7", "must be a JSON object"),
        ("{}", #""rating" is missing"#),
        (#"{"stars": 7}"#, #""rating" is missing"#),
        (#"{"rating": null}"#, #""rating" is null"#),
        (#"{"rating": 5.5}"#, "whole number"),
        (#"{"rating": "5"}"#, "the string"),
        (#"{"rating": true}"#, "a boolean"),
        (#"{"rating": [5]}"#, "an array"),
        (#"{"rating": {"value": 5}}"#, "an object"),
        (#"{"rating": 1e30}"#, "rating 1e30 is out of range: a rating is a whole number from 0 to 10"),
        (#"{"rating": 1e23}"#, "rating 1e23 is out of range: a rating is a whole number from 0 to 10"),
        (#"{"rating": -1e23}"#, "rating -1e23 is out of range"),
        (#"{"rating": 1e400}"#, "rating 1e400 is out of range"),
        (#"{"rating": 99999999999999999999}"#, "rating 99999999999999999999 is out of range"),
        (#"{"rating": 1.1e1}"#, "rating 1.1e1 is out of range"),
        (#"{"rating": 1e-400}"#, "must be a whole number (a JSON integer such as 7), not 1e-400"),
        (#"{"rating": 5.000000000000000001}"#, "must be a whole number"),
        (#"{"rating": 10.5}"#, "must be a whole number"),
        (#"{"rating": 5, "rating": 11}"#, #"the field "rating" is given twice"#),
        (#"{"rating": 5, "r\u0061ting": 5}"#, #"the field "rating" is given twice"#),
        (#"{"rating": 11}"#, "out of range"),
        (#"{"rating": -1}"#, "out of range"),
        (#"{"rating": 99999999999}"#, "out of range"),
    ])
    func malformedRatingsAre400WithAMessage(body: String, message: String) throws {
        let server = try Self.server("rate-bad", names: ["alpha.png"])
        let reply = try Self.rate(server.port, "alpha", body)
        #expect(reply.status == 400, "\(body) -> \(reply.status) \(reply.text)")
        #expect(reply.json?["error"] as? String == "bad_request")
        #expect((reply.json?["message"] as? String)?.contains(message) == true, "\(body) -> \(reply.text)")
        #expect(try server.service.ratings.rating(for: "alpha") == nil)  // nothing stored
    }

    @Test func unknownImageWrongMethodAndUnknownSort() throws {
        let server = try Self.server("rate-errors", names: ["alpha.png"])
        let missing = try Self.rate(server.port, "nobody", #"{"rating": 3}"#)
        #expect(missing.status == 404)
        #expect(missing.json?["error"] as? String == "not_found")
        let get = try server.get("/api/images/alpha/rating")
        #expect(get.status == 405)
        #expect(get.header("allow")?.contains("PUT") == true)
        let sort = try server.get("/api/images?sort=stars")
        #expect(sort.status == 400)
        #expect((sort.json?["message"] as? String)?.contains("name, rating, added") == true)
    }

    @Test func sortOrdersByNameRatingAndAdded() throws {
        let server = try Self.server("rate-sort", names: ["b10.png", "b9.png", "a.png", "c.png"])
        func ids(_ query: String) throws -> [String] {
            let list = try #require(try server.get("/api/images" + query).json?["images"] as? [[String: Any]])
            return list.map { $0["id"] as! String }
        }
        #expect(try ids("") == ["a", "b9", "b10", "c"])          // natural name order by default
        #expect(try ids("?sort=name") == ["a", "b9", "b10", "c"])
        _ = try Self.rate(server.port, "c", #"{"rating": 9}"#)
        _ = try Self.rate(server.port, "b10", #"{"rating": 2}"#)
        #expect(try ids("?sort=rating") == ["c", "b10", "a", "b9"])  // best first, unrated last by name
        #expect(try ids("?sort=RATING") == ["c", "b10", "a", "b9"])
        // The paging carousel follows the same order, ratings included.
        let page = try #require(try server.get("/api/gallery?page=1&sort=rating").json)
        #expect((page["previous"] as? [String: Any])?["id"] as? String == "c")
        #expect((page["current"] as? [String: Any])?["id"] as? String == "b10")
        #expect((page["current"] as? [String: Any])?["ratingAverage"] as? Double == 2)
        #expect(try server.get("/api/gallery?sort=stars").status == 400)
        // A file added later is newest; the others share the first scan's date and follow by name. Added dates
        // are kept to the millisecond, and the first scan's was taken before the listings above: the new
        // file is written once the clock has left the millisecond of the last of them.
        let listed = Self.millisecond(Date())
        let clock = Date().addingTimeInterval(5)
        while Self.millisecond(Date()) <= listed {
            guard Date() < clock else { throw TestFailure("the clock did not advance a millisecond in 5 s") }
            Thread.sleep(forTimeInterval: 0.001)
        }
        try TestImages.writePNG(width: 20, height: 20, to: server.images + "/z.png")
        let deadline = Date().addingTimeInterval(15)
        while try !ids("").contains("z") {
            guard Date() < deadline else { throw TestFailure("z.png not listed 15 s after it was written") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try ids("?sort=added") == ["z", "a", "b9", "b10", "c"])
    }

    @Test func twoHundredConcurrentUpdatesOverManyConnections() throws {
        let threads = 20, perThread = 10
        let server = try Self.server("rate-concurrent", names: (0..<threads).map { "img\($0).png" } + ["shared.png"])
        let failures = Guarded<[String]>([])
        let sharedValues = Guarded<Set<Int>>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            do {
                // Each thread has its own keep-alive connection and alternates between its own image
                // (one writer: its last value must win) and the image every thread fights over.
                // Each thread is a viewer of its own (its cookie) and a client of its own (its address): ten
                // writes each, the burst one client may send at once.
                let viewer = TestViewer(address: "127.0.0.\(thread + 2)")
                for step in 0..<perThread {
                    let (id, value) = step % 2 == 0 ? ("img\(thread)", step) : ("shared", (thread + step) % 11)
                    if id == "shared" && step == perThread - 1 { sharedValues.withLock { _ = $0.insert(value * 100 + thread) } }
                    let reply = try viewer.rate(server.port, id, value)
                    if reply.status != 200 || reply.json?["rating"] as? Int != value {
                        failures.withLock { $0.append("\(id)=\(value): \(reply.status) \(reply.text)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let list = try #require(try server.get("/api/images").json?["images"] as? [[String: Any]])
        let averages = Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! String, $0["ratingAverage"] as? Double) })
        let counts = Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! String, $0["ratingCount"] as? Int) })
        for thread in 0..<threads { #expect(averages["img\(thread)"] == 8 && counts["img\(thread)"] == 1, "img\(thread)") }
        // The shared image: every viewer's last value counts once.
        let lastValues = sharedValues.withLock { $0 }.map { $0 / 100 }
        #expect(counts["shared"] == threads)
        let expected = Double(lastValues.reduce(0, +)) / Double(threads)
        #expect(averages["shared"].map { abs(($0 ?? -1) - expected) < 0.006 } == true)
    }

    @Test func acknowledgedRatingsSurviveKillMinus9() throws {
        let root = try TestImages.folder("rate-kill")
        let images = root + "/images", data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        for index in 0..<10 { try TestImages.writePNG(width: 30, height: 30, to: images + "/p\(index).png", seed: index) }
        var expected: [String: Int] = [:]
        // A viewer (and a client) per image, five writes each: within a client's burst.
        let viewers = (0..<10).map { TestViewer(address: "127.0.0.\($0 + 40)") }
        do {
            let process = try ServerProcess(images: images, data: data)
            for round in 0..<5 {
                for index in 0..<10 {
                    let value = (index * 3 + round) % 11
                    let reply = try viewers[index].rate(process.port, "p\(index)", value)
                    #expect(reply.status == 200)
                    expected["p\(index)"] = value
                }
            }
            process.signal(SIGKILL)  // right after the last acknowledgement
            #expect(try process.waitForExit() != 0)
        }
        let restarted = try ServerProcess(images: images, data: data)
        // Each viewer's cookie still names them after the restart (the keys are in the catalog), and sees
        // their last acknowledged rating as the only one.
        for index in 0..<10 {
            let image = try #require(try viewers[index].get(restarted.port, "/api/images/p\(index)").json)
            #expect(image["rating"] as? Int == expected["p\(index)"] && image["ratingCount"] as? Int == 1, "p\(index)")
        }
        restarted.signal(SIGTERM)
        _ = try restarted.waitForExit()
    }
}

/// A value shared between test threads behind a lock.
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
