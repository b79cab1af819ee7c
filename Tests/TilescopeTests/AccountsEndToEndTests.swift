import Foundation
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Users, sessions, CSRF and IIIF Authorization Flow 2.0 over real HTTP against a real server (docs/access.md).
@Suite(.serialized) struct AccountsEndToEndTests {
    init() throws { try Vips.start() }

    @Test func signingInTakesTheRightPasswordAndSetsAStrictCookie() throws {
        let server = try AccountsServer("accounts-login")
        let wrong = try server.signIn("ann", "wrong password")
        #expect(wrong.reply.status == 401 && wrong.session == nil)
        #expect(wrong.reply.header("content-type")?.hasPrefix("text/html") == true && wrong.reply.text.contains("Wrong name or password"))
        let unknown = try server.signIn("nobody", AccountsServer.viewerPassword, json: true)
        #expect(unknown.reply.status == 401 && unknown.reply.json?["error"] as? String == "unauthorized" && unknown.session == nil)

        let (session, reply) = try server.signIn("ann", AccountsServer.viewerPassword)
        let cookie = try #require(session)
        #expect(reply.status == 200 && cookie.count == 64)
        let setCookie = try #require(reply.fields.first { $0.name.lowercased() == "set-cookie" }?.value)
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Path=/") && !setCookie.contains("Secure"))
        #expect(reply.header("content-security-policy")?.contains("frame-ancestors 'none'") == true)
        let me = try server.session(cookie)
        #expect(me["signedIn"] as? Bool == true && me["user"] as? String == "ann" && me["role"] as? String == "viewer")
        #expect((me["csrf"] as? String)?.count == 64 && me["via"] as? String == "session")
        #expect(try server.get("/api/session").json?["signedIn"] as? Bool == false)
        #expect(try server.session(String(repeating: "0", count: 64))["signedIn"] as? Bool == false)

        // Over HTTPS (a trusted proxy says so), the cookie is Secure.
        let page = try server.get("/auth/login", headers: ["X-Forwarded-Proto": "https"])
        let login = try #require(AccountsServer.cookie("tilescope_login", in: page))
        #expect(page.fields.contains { $0.value.hasPrefix("tilescope_login=") && $0.value.hasSuffix("; Secure") })
        let secure = try server.send("POST", "/auth/login", headers: ["Cookie": "tilescope_login=\(login)", "X-Forwarded-Proto": "https",
                                                                     "Content-Type": "application/x-www-form-urlencoded"],
                                     body: "name=root&password=admin+staple&csrf=\(login)")
        #expect(secure.status == 200)
        #expect(secure.fields.contains { $0.value.hasPrefix("tilescope_session=") && $0.value.hasSuffix("; Secure") })
    }

    @Test func aSessionOpensPrivateImagesAndSurvivesARestart() throws {
        let server = try AccountsServer("accounts-restart")
        let cookie = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        let tile = "/dzi/qsecret_files/9/0_0.jpeg?v=\(try server.version("qsecret"))"
        #expect(try server.get(tile).status == 401)
        let opened = try server.get(tile, headers: ["Cookie": "tilescope_session=\(cookie)"])
        #expect(opened.status == 200 && opened.header("content-type") == "image/jpeg" && opened.header("cache-control") == "private, no-cache")
        try server.restart()
        #expect(try server.session(cookie)["user"] as? String == "ann")
        #expect(try server.get(tile, headers: ["Cookie": "tilescope_session=\(cookie)"]).status == 200)
        #expect(try server.get("/iiif/3/qsecret/info.json", headers: ["Cookie": "tilescope_session=\(cookie)"]).status == 200)
        #expect(try server.get(tile).status == 401)
    }

    @Test func signingOutRevokesTheSessionAndItsAccessTokens() throws {
        let server = try AccountsServer("accounts-logout")
        let cookie = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        let csrf = try #require(try server.session(cookie)["csrf"] as? String)
        let token = try Self.accessToken(server, cookie: cookie)
        #expect(try Self.probe(server, token: token) == 200)
        // The logout page is a form; a GET signs nobody out.
        let page = try server.get("/auth/logout", headers: ["Cookie": "tilescope_session=\(cookie)"])
        #expect(page.status == 200 && page.text.contains("value=\"\(csrf)\""))
        #expect(try server.session(cookie)["signedIn"] as? Bool == true)
        // Without the CSRF token, or from another site, the form is refused.
        let forged = try server.send("POST", "/auth/logout", headers: ["Cookie": "tilescope_session=\(cookie)",
                                                                       "Content-Type": "application/x-www-form-urlencoded"], body: "csrf=x")
        #expect(forged.status == 403 && forged.json?["error"] as? String == "csrf_refused")
        let crossSite = try server.send("POST", "/auth/logout", headers: ["Cookie": "tilescope_session=\(cookie)", "Origin": "https://evil.example",
                                                                          "Content-Type": "application/x-www-form-urlencoded"], body: "csrf=\(csrf)")
        #expect(crossSite.status == 403)
        let out = try server.send("POST", "/auth/logout", headers: ["Cookie": "tilescope_session=\(cookie)", "Origin": server.origin,
                                                                    "Content-Type": "application/x-www-form-urlencoded"], body: "csrf=\(csrf)")
        #expect(out.status == 200 && out.fields.contains { $0.value.hasPrefix("tilescope_session=;") && $0.value.contains("Max-Age=0") })
        #expect(try server.session(cookie)["signedIn"] as? Bool == false)
        #expect(try server.get("/dzi/qsecret.dzi", headers: ["Cookie": "tilescope_session=\(cookie)"]).status == 401)
        #expect(try Self.probe(server, token: token) == 401)
        // The token service now says the session ended.
        let again = try server.get("/auth/token?messageId=m2&origin=http://127.0.0.1", headers: ["Cookie": "tilescope_session=\(cookie)"])
        #expect(again.text.contains("\"profile\":\"invalidAspect\"") && again.text.contains("\"messageId\":\"m2\""))
    }

    @Test func forgedCrossSiteWritesAreRefused() throws {
        let server = try AccountsServer("accounts-csrf")
        let viewer = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        let admin = try #require(try server.signIn("root", AccountsServer.adminPassword).session)
        let viewerCSRF = try #require(try server.session(viewer)["csrf"] as? String)
        let adminCSRF = try #require(try server.session(admin)["csrf"] as? String)
        let json = ["Content-Type": "application/json"]
        func rate(_ headers: [String: String]) throws -> RawHTTP.Reply {
            try server.send("PUT", "/api/images/open/rating", headers: json.merging(headers) { $1 }, body: #"{"rating": 6}"#)
        }
        // A session's write without its token, with another session's token, from another origin, or sent
        // cross-site without an Origin: 403.
        #expect(try rate(["Cookie": "tilescope_session=\(viewer)"]).status == 403)
        #expect(try rate(["Cookie": "tilescope_session=\(viewer)", "X-CSRF-Token": adminCSRF]).status == 403)
        #expect(try rate(["Cookie": "tilescope_session=\(viewer)", "X-CSRF-Token": viewerCSRF, "Origin": "https://evil.example"]).status == 403)
        #expect(try rate(["Cookie": "tilescope_session=\(viewer)", "X-CSRF-Token": viewerCSRF, "Origin": "null"]).status == 403)
        #expect(try rate(["Cookie": "tilescope_session=\(viewer)", "X-CSRF-Token": viewerCSRF, "Sec-Fetch-Site": "cross-site"]).status == 403)
        #expect(try rate(["Cookie": "tilescope_session=\(viewer)", "X-CSRF-Token": viewerCSRF, "Origin": server.origin]).status == 200)
        // An anonymous browser's cookie write from another site: refused by its Origin.
        #expect(try rate(["Cookie": "tilescope_viewer=\(String(repeating: "a", count: 32)).\(String(repeating: "b", count: 64))",
                          "Origin": "https://evil.example"]).status == 403)

        // Sign-in: without the login cookie, with a different one, or cross-site.
        let page = try server.get("/auth/login")
        let login = try #require(AccountsServer.cookie("tilescope_login", in: page))
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        let body = "name=ann&password=correct+horse+battery&csrf=\(login)"
        #expect(try server.send("POST", "/auth/login", headers: form, body: body).status == 403)
        #expect(try server.send("POST", "/auth/login", headers: form.merging(["Cookie": "tilescope_login=\(String(repeating: "c", count: 32))"]) { $1 },
                                body: body).status == 403)
        #expect(try server.send("POST", "/auth/login", headers: form.merging(["Cookie": "tilescope_login=\(login)", "Origin": "https://evil.example"]) { $1 },
                                body: body).status == 403)

        // An admin's session does what the admin token does, with its CSRF proof only.
        let mint = "/api/images/qsecret/signed-urls"
        #expect(try server.send("POST", mint, headers: json.merging(["Cookie": "tilescope_session=\(admin)"]) { $1 }, body: "{}").status == 403)
        #expect(try server.send("POST", mint, headers: json.merging(["Cookie": "tilescope_session=\(admin)", "X-CSRF-Token": adminCSRF,
                                                                     "Origin": "https://evil.example"]) { $1 }, body: "{}").status == 403)
        #expect(try server.send("POST", mint, headers: json.merging(["Cookie": "tilescope_session=\(admin)", "X-CSRF-Token": adminCSRF]) { $1 },
                                body: "{}").status == 201)
        #expect(try server.send("DELETE", "/api/images/open", headers: ["Cookie": "tilescope_session=\(admin)"]).status == 403)
        // A viewer's session is no admin's.
        #expect(try server.send("POST", mint, headers: json.merging(["Cookie": "tilescope_session=\(viewer)", "X-CSRF-Token": viewerCSRF]) { $1 },
                                body: "{}").status == 401)
        // The admin bearer token is not cookie-authenticated: no CSRF proof needed, whatever the Origin.
        #expect(try server.send("POST", mint, headers: json.merging(["Authorization": "Bearer \(AccountsServer.adminToken)",
                                                                     "Origin": "https://evil.example"]) { $1 }, body: "{}").status == 201)
    }

    @Test func theIIIFAuthFlowGoesFromProbeToTilesAndIsAdvertised() throws {
        let server = try AccountsServer("accounts-iiif-flow")
        let base = "http://127.0.0.1"
        // A stranger: info.json is 401, listing the probe service; the probe says 401.
        let refused = try server.get("/iiif/3/qsecret/info.json")
        #expect(refused.status == 401)
        let services = try #require(refused.json?["service"] as? [[String: Any]])
        let probeService = try #require(services.first)
        #expect(probeService["type"] as? String == "AuthProbeService2" && probeService["id"] as? String == "\(base)/auth/probe/qsecret")
        #expect(probeService["@context"] as? String == "http://iiif.io/api/auth/2/context.json")
        let access = try #require(probeService["service"] as? [[String: Any]])
        #expect(access.map { $0["profile"] as? String } == ["active", "external"])
        #expect(access[0]["id"] as? String == "\(base)/auth/login" && access[0]["type"] as? String == "AuthAccessService2")
        let inner = try #require(access[0]["service"] as? [[String: Any]])
        #expect(inner.map { $0["type"] as? String } == ["AuthAccessTokenService2", "AuthLogoutService2"])
        #expect(inner.map { $0["id"] as? String } == ["\(base)/auth/token", "\(base)/auth/logout"])
        #expect(try Self.probe(server, token: nil) == 401)
        #expect(try Self.probe(server, token: "1.99999999999.s\(String(repeating: "0", count: 64)).\(String(repeating: "0", count: 64))") == 401)
        // The public image's probe says 200, and it lists no auth services.
        #expect(try server.get("/auth/probe/open").json?["status"] as? Int == 200)
        #expect(try server.get("/iiif/3/open/info.json").text.contains("AuthProbeService2") == false)
        #expect(try server.get("/auth/probe/nosuch").status == 404)

        // The access service (login page), then the token service in the client's iframe.
        let loginPage = try server.get("/auth/login?origin=http://client.example")
        #expect(loginPage.status == 200 && loginPage.text.contains("name=\"origin\" value=\"http://client.example\""))
        let cookie = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        let tokenPage = try server.get("/auth/token?messageId=m%3C1&origin=http://127.0.0.1", headers: ["Cookie": "tilescope_session=\(cookie)"])
        #expect(tokenPage.status == 200 && tokenPage.header("content-type")?.hasPrefix("text/html") == true)
        #expect(tokenPage.header("cache-control") == "no-store" && tokenPage.header("x-frame-options") == nil)
        #expect(tokenPage.text.contains("window.parent.postMessage(") && tokenPage.text.contains(", \"http://127.0.0.1\");"))
        #expect(tokenPage.text.contains("\"type\":\"AuthAccessToken2\"") && tokenPage.text.contains("\"expiresIn\":300"))
        // The messageId comes back, and cannot close the script.
        #expect(tokenPage.text.contains("\"messageId\":\"m\\u003c1\"") && !tokenPage.text.contains("m<1"))
        let token = try Self.accessToken(server, cookie: cookie)
        #expect(try Self.probe(server, token: token) == 200)
        // Then tiles and info.json with the session cookie.
        let version = try server.version("qsecret")
        #expect(try server.get("/dzi/qsecret_files/9/0_0.jpeg?v=\(version)", headers: ["Cookie": "tilescope_session=\(cookie)"]).status == 200)
        let info = try #require(try server.get("/iiif/3/qsecret/info.json", headers: ["Cookie": "tilescope_session=\(cookie)"]).json)
        #expect((info["service"] as? [[String: Any]])?.contains { $0["type"] as? String == "AuthProbeService2" } == true)
        let info2 = try server.get("/iiif/2/qsecret/info.json", headers: ["Cookie": "tilescope_session=\(cookie)"])
        #expect(info2.status == 200 && info2.text.contains("\"type\":\"AuthProbeService2\""))
        let manifest = try server.get("/iiif/presentation/qsecret/manifest.json", headers: ["Cookie": "tilescope_session=\(cookie)"])
        #expect(manifest.status == 200 && manifest.text.contains("\"id\":\"\(base)/auth/probe/qsecret\""))
        // The access token is for the probe: tiles do not take it.
        #expect(try server.get("/dzi/qsecret.dzi", headers: ["Authorization": "Bearer \(token)"]).status == 401)

        // Without a session: missingAspect; without messageId or a valid origin: a 400 page that posts nothing.
        let missing = try server.get("/auth/token?messageId=m3&origin=http://127.0.0.1")
        #expect(missing.status == 200 && missing.text.contains("\"type\":\"AuthAccessTokenError2\"") && missing.text.contains("\"profile\":\"missingAspect\""))
        let noOrigin = try server.get("/auth/token?messageId=m4&origin=javascript:alert(1)")
        #expect(noOrigin.status == 400 && !noOrigin.text.contains("postMessage"))
        #expect(try server.get("/auth/token?origin=http://127.0.0.1").status == 400)
    }

    @Test func aTrustedProxysHeaderSignsInThroughTheExternalProfile() throws {
        let server = try AccountsServer("accounts-external")
        let proxy = [AccountsServer.proxyHeader: "carol"]
        let tokenPage = try server.get("/auth/token?messageId=x1&origin=http://127.0.0.1", headers: proxy)
        let token = try #require(Self.token(in: tokenPage.text))
        #expect(try Self.probe(server, token: token) == 200)
        #expect(try server.get("/dzi/qsecret.dzi", headers: proxy).status == 200)
        let me = try #require(try server.get("/api/session", headers: proxy).json)
        #expect(me["user"] as? String == "carol" && me["role"] as? String == "viewer" && me["via"] as? String == "header")
        // The header names an admin of the users file: an admin, with the CSRF token bound to the name.
        let root = try #require(try server.get("/api/session", headers: [AccountsServer.proxyHeader: "root"]).json)
        #expect(root["role"] as? String == "admin")
        let csrf = try #require(root["csrf"] as? String)
        let mint = "/api/images/qsecret/signed-urls"
        #expect(try server.send("POST", mint, headers: [AccountsServer.proxyHeader: "root"], body: "{}").status == 403)
        #expect(try server.send("POST", mint, headers: [AccountsServer.proxyHeader: "root", "X-CSRF-Token": csrf], body: "{}").status == 201)
        // A name no user could have is no one.
        #expect(try server.get("/dzi/qsecret.dzi", headers: [AccountsServer.proxyHeader: "bad name!"]).status == 401)
        #expect(try server.get("/auth/external", headers: proxy).text.contains("carol"))
    }

    @Test func aHeaderFromAnUntrustedPeerSignsNobodyIn() throws {
        let server = try AccountsServer("accounts-untrusted") { $0.trustedProxies = "10.9.8.7" }
        #expect(try server.get("/dzi/qsecret.dzi", headers: [AccountsServer.proxyHeader: "carol"]).status == 401)
        #expect(try server.get("/api/session", headers: [AccountsServer.proxyHeader: "carol"]).json?["signedIn"] as? Bool == false)
    }

    @Test func theDegradedTierIsOpenAndNothingLargerIs() throws {
        let server = try AccountsServer("accounts-degraded") { $0.privatePreviewSize = 64 }
        let result = try #require(try server.get("/auth/probe/qsecret").json)
        // The spec's tiered access: refused (401), the small version offered as the substitute; no `location`,
        // which comes only with a 30x and would be drawn instead of offering to sign in.
        #expect(result["status"] as? Int == 401 && result["type"] as? String == "AuthProbeResult2")
        #expect(result["location"] == nil)
        let substitutes = try #require(result["substitute"] as? [[String: Any]])
        let tier = try #require(substitutes.first)
        #expect(substitutes.count == 1)
        #expect(tier["id"] as? String == "http://127.0.0.1/auth/degraded/qsecret.jpeg" && tier["type"] as? String == "Image")
        #expect(tier["width"] as? Int == 64 && tier["height"] as? Int == 48)
        let small = try server.get("/auth/degraded/qsecret.jpeg")
        #expect(small.status == 200 && small.header("content-type") == "image/jpeg" && small.header("cache-control") == "public, max-age=3600")
        #expect(small.header("link") == nil)
        let image = try DirectSourceTests.decoded(small.body)
        #expect(image.width == 64 && image.height == 48)
        // Nothing larger without a credential; the tier is for private images only.
        #expect(try server.get("/iiif/3/qsecret/full/65,/0/default.jpg").status == 401)
        #expect(try server.get("/images/qsecret/preview.jpeg").status == 401)
        #expect(try server.get("/auth/degraded/open.jpeg").status == 404)
        #expect(try server.get("/auth/degraded/nosuch.jpeg").status == 404)
        // With a credential, the probe says 200.
        let cookie = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        #expect(try Self.probe(server, token: try Self.accessToken(server, cookie: cookie)) == 200)
    }

    @Test func aSignedInUsersRatingIsTheirsAndCanBeWithdrawn() throws {
        let server = try AccountsServer("accounts-ratings") { $0.ratings = .signedIn }
        let json = ["Content-Type": "application/json"]
        // Anonymous writes are refused under --ratings signed-in.
        #expect(try server.send("PUT", "/api/images/open/rating", headers: json, body: #"{"rating": 3}"#).status == 401)
        let ann = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        let annCSRF = try #require(try server.session(ann)["csrf"] as? String)
        let root = try #require(try server.signIn("root", AccountsServer.adminPassword).session)
        let rootCSRF = try #require(try server.session(root)["csrf"] as? String)
        let annHeaders = json.merging(["Cookie": "tilescope_session=\(ann)", "X-CSRF-Token": annCSRF]) { $1 }
        let rated = try #require(try server.send("PUT", "/api/images/open/rating", headers: annHeaders, body: #"{"rating": 8}"#).json)
        #expect(rated["rating"] as? Int == 8 && rated["ratingCount"] as? Int == 1)
        _ = try server.send("PUT", "/api/images/open/rating", headers: json.merging(["Cookie": "tilescope_session=\(root)", "X-CSRF-Token": rootCSRF]) { $1 },
                            body: #"{"rating": 2}"#)
        // Ann's rating is hers from any browser (a new session), not a cookie's.
        let again = try #require(try server.signIn("ann", AccountsServer.viewerPassword).session)
        let seen = try #require(try server.get("/api/images/open", headers: ["Cookie": "tilescope_session=\(again)"]).json)
        #expect(seen["rating"] as? Int == 8 && seen["ratingCount"] as? Int == 2 && seen["ratingAverage"] as? Double == 5)
        // Withdrawing needs the CSRF proof like any write, and removes only her rating.
        #expect(try server.send("DELETE", "/api/images/open/rating", headers: ["Cookie": "tilescope_session=\(ann)"]).status == 403)
        let withdrawn = try #require(try server.send("DELETE", "/api/images/open/rating", headers: annHeaders).json)
        #expect(withdrawn["rating"] is NSNull && withdrawn["ratingCount"] as? Int == 1 && withdrawn["ratingAverage"] as? Double == 2)
        // Durable: after a restart, still withdrawn.
        try server.restart()
        let after = try #require(try server.get("/api/images/open", headers: ["Cookie": "tilescope_session=\(ann)"]).json)
        #expect(after["rating"] is NSNull && after["ratingCount"] as? Int == 1)
    }

    @Test func anAnonymousViewerWithdrawsTheirOwnRating() throws {
        let server = try AccountsServer("accounts-anonymous-withdraw")
        let json = ["Content-Type": "application/json"]
        let first = try server.send("PUT", "/api/images/open/rating", headers: json, body: #"{"rating": 9}"#)
        let viewer = try #require(AccountsServer.cookie("tilescope_viewer", in: first))
        _ = try server.send("PUT", "/api/images/open/rating", headers: json, body: #"{"rating": 1}"#)
        let withdrawn = try #require(try server.send("DELETE", "/api/images/open/rating", headers: ["Cookie": "tilescope_viewer=\(viewer)"]).json)
        #expect(withdrawn["rating"] is NSNull && withdrawn["ratingCount"] as? Int == 1 && withdrawn["ratingAverage"] as? Double == 1)
        // No cookie: nothing of this client's to withdraw; the others' stay.
        let none = try #require(try server.send("DELETE", "/api/images/open/rating").json)
        #expect(none["ratingCount"] as? Int == 1)
    }

    // MARK: - Helpers

    /// The access token the token service posts to a page of this server for a session.
    static func accessToken(_ server: AccountsServer, cookie: String) throws -> String {
        let page = try server.get("/auth/token?messageId=t&origin=http://127.0.0.1", headers: ["Cookie": "tilescope_session=\(cookie)"])
        return try #require(token(in: page.text), "\(page.text)")
    }

    static func token(in page: String) -> String? {
        guard let range = page.range(of: "\"accessToken\":\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The probe result's `status` for qsecret, with the token if any.
    static func probe(_ server: AccountsServer, token: String?) throws -> Int? {
        let reply = try server.get("/auth/probe/qsecret", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
        #expect(reply.status == 200 && reply.json?["type"] as? String == "AuthProbeResult2")
        return reply.json?["status"] as? Int
    }
}
