import Catalog
import Foundation
import HTTPServer
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Ratings per viewer over real HTTP against a real server and catalog: viewers told apart by their signed
/// cookies, forged cookies refused, keys rotated, who may rate, and each client's write budget.
@Suite(.serialized) struct ViewerRatingTests {
    init() throws { try Vips.start() }

    static func server(_ label: String, names: [String] = ["a.png", "b.png", "c.png", "d.png"],
                       configure: (inout ServeConfig) -> Void = { _ in }) throws -> TestServer {
        try TestServer(label: label, configure: configure) { folder in
            for (index, name) in names.enumerated() {
                try TestImages.writePNG(width: 30 + index, height: 20, to: folder + "/" + name, seed: index)
            }
        }
    }

    @Test func twoViewersEachSeeTheirOwnRatingAndTheAverage() throws {
        let server = try Self.server("viewers-two")
        let ann = TestViewer(address: "127.0.0.2"), bob = TestViewer(address: "127.0.0.3")
        let first = try ann.rate(server.port, "a", 9)
        #expect(first.status == 200)
        let set = try #require(first.header("set-cookie"))
        #expect(set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Path=/") && set.contains("Max-Age="))
        #expect(!set.contains("Secure"))  // plain HTTP, no trusted proxy saying otherwise
        let second = try bob.rate(server.port, "a", 4)
        #expect(second.json?["rating"] as? Int == 4 && second.json?["ratingAverage"] as? Double == 6.5
                && second.json?["ratingCount"] as? Int == 2)
        #expect(ann.id != nil && ann.id != bob.id)
        for (viewer, own) in [(ann, 9), (bob, 4)] {
            let one = try #require(try viewer.get(server.port, "/api/images/a").json)
            #expect(one["rating"] as? Int == own && one["ratingAverage"] as? Double == 6.5 && one["ratingCount"] as? Int == 2)
            let list = try #require(try viewer.get(server.port, "/api/images?limit=10").json?["images"] as? [[String: Any]])
            let a = try #require(list.first { $0["id"] as? String == "a" })
            #expect(a["rating"] as? Int == own && a["ratingCount"] as? Int == 2)
            let page = try #require(try viewer.get(server.port, "/api/gallery?page=0").json?["current"] as? [String: Any])
            #expect(page["rating"] as? Int == own)
        }
        // Ann changes her mind: still two ratings, her own replaced.
        let changed = try ann.rate(server.port, "a", 2)
        #expect(changed.json?["rating"] as? Int == 2 && changed.json?["ratingAverage"] as? Double == 3 && changed.json?["ratingCount"] as? Int == 2)
        try server.waitUntilBuilt()
        // The manifest is the same for everyone: the average and count, never one viewer's own.
        let manifest = try server.get("/iiif/presentation/a/manifest.json").text
        #expect(manifest.contains("3 of 10 (2 ratings)"))
    }

    @Test func aForgedOrTamperedCookieIsIgnoredAndANewViewerIssued() throws {
        let server = try Self.server("viewers-forged")
        let honest = TestViewer(address: "127.0.0.2")
        _ = try honest.rate(server.port, "a", 5)
        let cookie = try #require(honest.cookie)
        let forgedID = String(repeating: "ab", count: 16)
        // Another viewer's id with the honest tag; the honest id with one tag digit changed; an invented
        // tag; the legacy viewer; junk.
        let tampered = String(cookie.prefix(33)) + String(cookie.dropFirst(33).map { $0 == "0" ? "1" : "0" }.prefix(1)) + String(cookie.dropFirst(34))
        let forgeries = [forgedID + String(cookie.dropFirst(32)), tampered, forgedID + "." + String(repeating: "0", count: 64),
                         String(repeating: "0", count: 32) + String(cookie.dropFirst(32)), "nonsense", ""]
        for (index, forged) in forgeries.enumerated() {
            let forger = TestViewer(address: "127.0.0.\(10 + index)", cookie: forged)
            let reply = try forger.rate(server.port, "b", 1)
            #expect(reply.status == 200, "\(forged)")
            #expect(reply.header("set-cookie")?.hasPrefix("tilescope_viewer=") == true, "a new identity for \(forged)")
            #expect(forger.cookie != forged && forger.id != forgedID && forger.id != String(cookie.prefix(32)), "\(forged)")
        }
        // The forged ids were given nothing: the honest viewer's rating of b is still none, forgedID has none,
        // and b has one rating per forger, each by a fresh viewer.
        let store = server.service.ratings
        #expect(try store.summaries(for: ["b"], viewer: ViewerID(hex: forgedID))["b"]?.own == nil)
        #expect(try store.summaries(for: ["b"], viewer: ViewerID(hex: String(cookie.prefix(32))))["b"]?.own == nil)
        #expect(try store.summaries(for: ["b"], viewer: .legacy)["b"]?.own == nil)
        #expect(try store.summaries(for: ["b"], viewer: nil)["b"]?.count == forgeries.count)
        // Reading with a forged cookie shows no own rating.
        let reader = TestViewer(address: "127.0.0.30", cookie: tampered)
        #expect(try reader.get(server.port, "/api/images/a").json?["rating"] is NSNull)
        #expect(try honest.get(server.port, "/api/images/a").json?["rating"] as? Int == 5)
    }

    @Test func aKeyRotationKeepsOldCookiesValidAndSignsWithTheNewKey() throws {
        let server = try Self.server("viewers-rotate")
        let old = TestViewer(address: "127.0.0.2")
        _ = try old.rate(server.port, "a", 8)
        let oldCookie = try #require(old.cookie)
        let config = server.service.config
        server.service.stop()
        // The operator's rotation: a newer key in the catalog (docs/security.md#viewer-cookies).
        let newest = try ViewerKeys(database: SQLiteRatingStore(dataFolder: config.dataFolder).database).rotate()
        #expect(newest.id == 2)
        let restarted = try TilescopeService(config)
        try restarted.start()
        defer { restarted.stop() }
        let port = restarted.server.port
        // The old cookie still names its viewer: their rating shows, a write keeps it and issues no new cookie.
        #expect(try old.get(port, "/api/images/a").json?["rating"] as? Int == 8)
        let again = try old.rate(port, "a", 6)
        #expect(again.status == 200 && again.header("set-cookie") == nil && old.cookie == oldCookie)
        #expect(again.json?["ratingCount"] as? Int == 1)
        // A new viewer's cookie is signed with the newest key, which the old one never verified.
        let fresh = TestViewer(address: "127.0.0.3")
        _ = try fresh.rate(port, "a", 2)
        let freshCookie = try #require(fresh.cookie)
        #expect(ViewerCookie.viewer(cookieHeader: "tilescope_viewer=" + freshCookie, keys: [newest]) != nil)
        let oldKey = try #require(try ViewerKeys(database: SQLiteRatingStore(dataFolder: config.dataFolder).database).all().last)
        #expect(ViewerCookie.viewer(cookieHeader: "tilescope_viewer=" + freshCookie, keys: [oldKey]) == nil)
        #expect(ViewerCookie.viewer(cookieHeader: "tilescope_viewer=" + oldCookie, keys: [oldKey]) != nil)
    }

    @Test func oneClientsBurstIsLimitedWhileAnotherClientWrites() throws {
        let server = try Self.server("viewers-limit")
        let budget = RatingWriteLimiter.Budget.default
        let flooder = TestViewer(address: "127.0.0.2")
        // Malformed writes are 400 and write nothing, so they spend none of the budget.
        for _ in 0..<5 {
            let bad = try flooder.send(server.port, "PUT", "/api/images/a/rating", body: Array(#"{"rating": 11}"#.utf8))
            #expect(bad.status == 400)
        }
        var accepted = 0, refused: [RawHTTP.Reply] = []
        for index in 0..<40 {
            let reply = try flooder.rate(server.port, "a", index % 11)
            if reply.status == 200 { accepted += 1 } else { refused.append(reply) }
        }
        // The burst, plus whatever refilled while the 40 requests ran (half a write a second).
        #expect(accepted >= Int(budget.burst) && accepted <= Int(budget.burst) + 2, "\(accepted) accepted")
        #expect(!refused.isEmpty && refused.allSatisfy { $0.status == 429 })
        let first = try #require(refused.first)
        #expect(first.json?["error"] as? String == "too_many_requests")
        let retry = try #require(first.header("retry-after").flatMap { Int($0) })
        #expect((1...60).contains(retry))
        // Another client is unaffected, and writes from many other clients each get their own budget.
        let other = TestViewer(address: "127.0.0.3")
        for value in 0..<5 { #expect(try other.rate(server.port, "a", value).status == 200) }
        // Every accepted write is in the catalog: the flooder kept one viewer, so one rating; plus the other's.
        let summary = try #require(try server.service.ratings.summaries(for: ["a"], viewer: nil)["a"])
        #expect(summary.count == 2)
        // After Retry-After the flooder may write again.
        Thread.sleep(forTimeInterval: Double(retry) + 0.1)
        #expect(try flooder.rate(server.port, "a", 3).status == 200)
    }

    /// Issue 42's goal 4: 10,000 anonymous writes from one client as fast as it can send them (well within a
    /// minute): the budget's worth accepted and stored, every other one 429 with Retry-After; meanwhile another
    /// client's writes all succeed.
    @Test func tenThousandAnonymousWritesFromOneClient() throws {
        let server = try Self.server("viewers-flood", names: ["a.png", "b.png"])
        let budget = RatingWriteLimiter.Budget.default
        let flood = try RawHTTP(port: server.port, from: "127.0.0.2")  // one keep-alive connection, no cookie
        let other = TestViewer(address: "127.0.0.3")
        let started = Date()
        var accepted = 0, refused = 0, otherAccepted = 0, unexpected: [String] = []
        for index in 0..<10_000 {
            let reply = try flood.send("PUT", "/api/images/a/rating", headers: ["Content-Type": "application/json"],
                                       body: Array(#"{"rating": \#(index % 11)}"#.utf8))
            switch reply.status {
            case 200: accepted += 1
            case 429 where reply.header("retry-after").flatMap(Int.init).map { (1...60).contains($0) } == true: refused += 1
            default: unexpected.append("\(reply.status) \(reply.text.prefix(80))")
            }
            if index % 1000 == 0 {
                if try other.rate(server.port, "b", index % 11).status == 200 { otherAccepted += 1 }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(unexpected.isEmpty, "\(unexpected.prefix(3))")
        #expect(seconds < 60, "10,000 writes took \(seconds) s")
        let allowed = Int(budget.burst + seconds * budget.perSecond) + 1
        #expect(accepted >= Int(budget.burst) && accepted <= allowed, "\(accepted) accepted in \(seconds) s, at most \(allowed)")
        #expect(accepted + refused == 10_000)
        #expect(otherAccepted == 10)
        // Each accepted cookieless write was a new viewer's rating, stored before its answer: one each.
        #expect(try server.service.ratings.summaries(for: ["a"], viewer: nil)["a"]?.count == accepted)
    }

    @Test func theRatingSortUsesTheAverageThenTheCount() throws {
        let server = try Self.server("viewers-sort")
        let one = TestViewer(address: "127.0.0.2"), two = TestViewer(address: "127.0.0.3"), three = TestViewer(address: "127.0.0.4")
        // a: 10 and 4 (average 7 of 2); b: 7 (average 7 of 1); c: 9 (of 1); d: unrated.
        _ = try one.rate(server.port, "a", 10)
        _ = try two.rate(server.port, "a", 4)
        _ = try three.rate(server.port, "b", 7)
        _ = try one.rate(server.port, "c", 9)
        let list = try #require(try server.get("/api/images?sort=rating").json?["images"] as? [[String: Any]])
        #expect(list.map { $0["id"] as! String } == ["c", "a", "b", "d"])
        // Pages by cursor follow the same order.
        var ids: [String] = [], cursor: String? = nil
        repeat {
            let page = try #require(try server.get("/api/images?sort=rating&limit=1" + (cursor.map { "&cursor=\($0)" } ?? "")).json)
            ids += (page["images"] as? [[String: Any]] ?? []).map { $0["id"] as! String }
            cursor = page["next"] as? String
        } while cursor != nil
        #expect(ids == ["c", "a", "b", "d"])
        // A new rating moves an image at once: b is now 7 and 10, average 8.5, above a.
        _ = try two.rate(server.port, "b", 10)
        let after = try #require(try server.get("/api/images?sort=rating").json?["images"] as? [[String: Any]])
        #expect(after.map { $0["id"] as! String } == ["c", "b", "a", "d"])
    }

    @Test func whoMayRateIsASetting() throws {
        let admins = try Self.server("viewers-admins", names: ["a.png"]) {
            $0.ratings = .admins
            $0.adminToken = "a-test-admin-token-0123456789"
        }
        let viewer = TestViewer(address: "127.0.0.2")
        let refused = try viewer.rate(admins.port, "a", 5)
        #expect(refused.status == 401 && refused.json?["error"] as? String == "unauthorized" && refused.header("set-cookie") == nil)
        let wrong = try viewer.rate(admins.port, "a", 5, headers: ["Authorization": "Bearer not-the-token"])
        #expect(wrong.status == 401)
        let admin = try viewer.rate(admins.port, "a", 5, headers: ["Authorization": "Bearer a-test-admin-token-0123456789"])
        #expect(admin.status == 200 && admin.json?["rating"] as? Int == 5)
        let off = try Self.server("viewers-off", names: ["a.png"]) { $0.ratings = .off }
        let closed = try TestViewer(address: "127.0.0.3").rate(off.port, "a", 5)
        #expect(closed.status == 403 && closed.json?["error"] as? String == "ratings_off")
        #expect(try off.get("/api/images/a").json?["ratingCount"] as? Int == 0)
        var config = ServeConfig(), positional: [String] = []
        #expect(throws: UsageError.self) {
            try SettingsParser.parse(["--ratings", "everyone"], environment: [:], settings: ServeConfig.settings,
                                     into: &config, positional: &positional)
        }
    }

    @Test func theCookieIsSecureWhenATrustedProxySaysHTTPS() throws {
        let server = try Self.server("viewers-secure", names: ["a.png"]) { $0.trustedProxies = "127.0.0.1" }
        let proxied = TestViewer(address: "127.0.0.1")
        let reply = try proxied.rate(server.port, "a", 5, headers: ["X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"])
        #expect(reply.header("set-cookie")?.hasSuffix("; Secure") == true)
        // From an untrusted address the header is a claim anyone can make: no Secure.
        let direct = TestViewer(address: "127.0.0.2")
        let plain = try direct.rate(server.port, "a", 5, headers: ["X-Forwarded-Proto": "https"])
        #expect(plain.header("set-cookie")?.contains("Secure") == false)
    }

    @Test func theWriteLimiterForgetsIdleClients() {
        let limiter = RatingWriteLimiter(budget: .init(burst: 2, perSecond: 1), maxClients: 100)
        for index in 0..<1000 { #expect(limiter.admit(ClientAddress("10.0.\(index / 256).\(index % 256)"), now: Double(index) * 10) == nil) }
        #expect(limiter.rememberedClients <= 100)
        let client = ClientAddress("192.0.2.1")
        let later = 20_000.0  // after every client above
        #expect(limiter.admit(client, now: later) == nil && limiter.admit(client, now: later) == nil)
        #expect(limiter.admit(client, now: later) == 1)
        #expect(limiter.admit(client, now: later + 1) == nil)
    }
}
