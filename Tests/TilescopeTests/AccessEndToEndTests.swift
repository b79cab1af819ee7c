import Catalog
import Foundation
import Synchronization
@testable import HTTPServer
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Private images and signed URLs over real HTTP against a real server (docs/access.md): who gets in, what the
/// answers under a signed base hand out, how they may be cached, and the hot table's part in it.
@Suite(.serialized) struct AccessEndToEndTests {
    init() throws { try Vips.start() }

    @Test func privateImagesAnswer401WithoutACredentialAndAreNotListed() throws {
        let gallery = try PrivateGallery("access-basics")
        for id in PrivateGallery.privateIDs {
            let reply = try gallery.get("/dzi/\(id)_files/0/0_0.jpeg?v=\(try gallery.version(id))")
            #expect(reply.status == 401 && reply.json?["error"] as? String == "unauthorized", "\(id)")
            #expect(reply.header("content-type")?.hasPrefix("application/json") == true && reply.header("www-authenticate") == "Bearer realm=\"tilescope\"")
        }
        let list = try #require(try gallery.get("/api/images").json?["images"] as? [[String: Any]])
        #expect(list.compactMap { $0["id"] as? String } == ["open"])
        #expect(try gallery.get("/api/images?limit=10").json?["count"] as? Int == 1)
        #expect(try gallery.get("/api/gallery?page=0").json?["count"] as? Int == 1)
        // The public image is served as before, from the plain URLs.
        #expect(try gallery.get("/dzi/open.dzi").status == 200)
        #expect(try gallery.get("/iiif/3/open/full/64,/0/default.jpg").status == 200)
    }

    @Test func theAdminTokenOpensAPrivateImageForItsBrowserOnly() throws {
        let gallery = try PrivateGallery("access-admin")
        let path = "/dzi/qsecret_files/9/0_0.jpeg?v=\(try gallery.version("qsecret"))"
        let admin = ["Authorization": "Bearer \(PrivateGallery.adminToken)"]
        let before = try gallery.metric("tilescope_hot_tiles_answered")
        for _ in 0..<3 {
            let reply = try gallery.get(path, headers: admin)
            #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
            #expect(reply.header("cache-control") == "private, no-cache")
        }
        // Never kept for answering without routing: the table does not read the Authorization header.
        #expect(try gallery.metric("tilescope_hot_tiles_answered") == before)
        #expect(try gallery.get(path).status == 401)
        #expect(try gallery.get(path, headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try gallery.get("/api/images/qhidden", headers: admin).json?["title"] as? String == "Hidden Title Qx7")
    }

    @Test func aSignedURLOpensItsImagesAndHandsOutSignedBases() throws {
        let gallery = try PrivateGallery("access-signed")
        let minted = try gallery.mint("qsecret", seconds: 600, images: ["qhidden"])
        let token = try #require(minted["token"] as? String), base = "/signed/\(token)"
        #expect(minted["base"] as? String == base && minted["images"] as? [String] == ["qsecret", "qhidden"])
        let expires = try #require(minted["expires"] as? Int)
        #expect(abs(expires - Int(Date().timeIntervalSince1970) - 600) <= 5)
        let version = try gallery.version("qsecret")

        // The descriptor without ?v= names the signed tiles folder; with ?v= OpenSeadragon derives tiles
        // from its own URL, which carries the prefix.
        let dzi = try gallery.get(base + "/dzi/qsecret.dzi")
        #expect(dzi.status == 200 && dzi.text.contains("Url=\"http://127.0.0.1/signed/\(token)/dzi/qsecret/\(version)_files/\""), "\(dzi.text)")
        let infoReply = try gallery.get(base + "/iiif/3/qsecret/info.json")
        // info.json's hour is cut to the token's ten minutes.
        let infoAge = try #require(infoReply.header("cache-control").flatMap(AccessControl.maxAge))
        #expect(infoAge <= 600 && infoAge >= 590, "\(infoReply.header("cache-control") ?? "")")
        let info = try #require(infoReply.json)
        #expect(info["id"] as? String == "http://127.0.0.1/signed/\(token)/iiif/3/qsecret")
        let info2 = try #require(try gallery.get(base + "/iiif/2/qhidden/info.json").json)
        #expect(info2["@id"] as? String == "http://127.0.0.1/signed/\(token)/iiif/2/qhidden")
        let record = try #require(try gallery.get(base + "/api/images/qhidden").json)
        let urls = try #require(record["urls"] as? [String: Any])
        #expect((urls["dzi"] as? String)?.hasPrefix(base + "/dzi/qhidden.dzi?v=") == true)
        #expect((urls["tiles"] as? String)?.hasPrefix(base + "/dzi/qhidden_files/") == true)
        let viewport = try gallery.get(base + "/api/images/qsecret/viewport?width=300&height=200&zoomScale=2&tileURLs=1").text
        #expect(viewport.contains("\"" + base + "/dzi/qsecret_files/") && !viewport.contains("\"/dzi/"), "\(viewport)")
        let manifest = try gallery.get(base + "/iiif/presentation/qsecret/manifest.json").text
        #expect(manifest.contains("http://127.0.0.1/signed/\(token)/iiif/3/qsecret"))

        // Versioned tiles are cacheable by anyone until the token expires, and no longer.
        let tile = try gallery.get(base + "/dzi/qsecret_files/9/0_0.jpeg?v=\(version)")
        #expect(tile.status == 200 && tile.header("content-type") == "image/jpeg")
        #expect(tile.header("cache-control") == "public, immutable" && tile.header("expires") == AccessControl.httpDate(expires))
        #expect(try gallery.get(base + "/dzi/qsecret/\(version)_files/9/0_0.jpeg").header("expires") == AccessControl.httpDate(expires))
        #expect(try gallery.get(base + "/iiif/3/qsecret/full/100,/0/default.jpg").status == 200)
        #expect(try gallery.get(base + "/images/qhidden/preview.jpeg").status == 200)
        // It opens nothing else that is private; public images stay public under it.
        #expect(try gallery.get(base + "/dzi/qother.dzi").status == 401)
        #expect(try gallery.get(base + "/dzi/open.dzi").status == 200)
        // It reads, and never writes or mints.
        #expect(try RawHTTP(port: gallery.port).send("DELETE", base + "/api/images/qsecret",
                                                     headers: ["Authorization": "Bearer \(PrivateGallery.adminToken)"]).status == 403)
    }

    @Test func aSignedTileKeptInMemoryIsRefusedOnceItsTokenExpires() throws {
        let gallery = try PrivateGallery("access-hot-expiry")
        let token = try gallery.token("qsecret", seconds: 3)
        let path = "/signed/\(token)/dzi/qsecret_files/9/0_0.jpeg?v=\(try gallery.version("qsecret"))"
        #expect(try gallery.get(path).status == 200)
        let before = try gallery.metric("tilescope_hot_tiles_answered")
        let again = try gallery.get(path)
        #expect(again.status == 200 && again.header("expires") != nil)
        // The premise: the second answer came from the hot table, in C.
        #expect(try gallery.metric("tilescope_hot_tiles_answered") == before + 1)
        try PrivateGallery.waitUntilExpired(token)
        let late = try gallery.get(path)
        #expect(late.status == 401 && late.json?["message"] as? String == "the signed URL has expired")
        #expect(try gallery.metric("tilescope_hot_tiles_answered") == before + 1)
    }

    @Test func aSidecarThatMakesAnImagePrivateDropsItsKeptAnswers() throws {
        let gallery = try PrivateGallery("access-sidecar-change")
        let path = "/dzi/open_files/9/0_0.jpeg?v=\(try gallery.version("open"))"
        #expect(try gallery.get(path).status == 200)
        let before = try gallery.metric("tilescope_hot_tiles_answered")
        #expect(try gallery.get(path).status == 200)
        #expect(try gallery.metric("tilescope_hot_tiles_answered") == before + 1)  // the premise: it was hot
        let captions = PrivateGallery.captions.replacingOccurrences(of: #""title": "Open harbour""#,
                                                                   with: #""title": "Open harbour", "access": "private""#)
        try Data(captions.utf8).write(to: URL(fileURLWithPath: gallery.server.images + "/captions.json.tmp"))
        #expect(rename(gallery.server.images + "/captions.json.tmp", gallery.server.images + "/captions.json") == 0)
        let deadline = Date().addingTimeInterval(30)
        while try gallery.get("/api/images/open").status != 401 {
            guard Date() < deadline else { throw TestFailure("the sidecar's new rule was not read within 30 s") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(try gallery.get(path).status == 401)
        #expect(try gallery.get("/api/images").json?["images"] as? [Any] == nil
                || (try gallery.get("/api/images").json?["images"] as? [Any])?.isEmpty == true)
    }

    @Test func mintingTakesTheAdminTokenAndBoundedValues() throws {
        let gallery = try PrivateGallery("access-mint")
        let post = { (headers: [String: String], body: String) in
            try RawHTTP(port: gallery.port).send("POST", "/api/images/qsecret/signed-urls", headers: headers, body: Array(body.utf8))
        }
        let admin = ["Authorization": "Bearer \(PrivateGallery.adminToken)"]
        #expect(try post([:], "{}").status == 401)
        #expect(try post(["Authorization": "Bearer nope"], "{}").status == 401)
        for bad in [#"{"expiresIn": 0}"#, #"{"expiresIn": 31536001}"#, #"{"expiresIn": 1e400}"#, #"{"expiresIn": -5}"#,
                    #"{"expiresIn": 1.5}"#, #"{"expiresIn": "60"}"#, #"{"images": "qother"}"#, #"{"images": [1]}"#,
                    #"{"expiresIn": 5, "expiresIn": 6}"#, "[", "nonsense"] {
            let reply = try post(admin, bad)
            #expect(reply.status == 400 && reply.json?["error"] as? String == "bad_request", "\(bad): \(reply.text)")
        }
        // The path's image exists; an unknown one named in the body conflicts with the library (409), and an unknown
        // path is the route's 404.
        let unknownInBody = try post(admin, #"{"images": ["nowhere"]}"#)
        #expect(unknownInBody.status == 409 && unknownInBody.json?["error"] as? String == "unknown_image", "\(unknownInBody.text)")
        for misshapen in ["-nowhere", "no--where", "nowhere-", "Nowhere", "\u{d7}"] {
            #expect(try post(admin, #"{"images": ["\#(misshapen)"]}"#).status == 400, "\(misshapen)")
            // Misshapen after an unknown id of a good shape: still a bad request, every shape checked first.
            #expect(try post(admin, #"{"images": ["nowhere", "\#(misshapen)"]}"#).status == 400, "nowhere, \(misshapen)")
        }
        let unknownPath = try RawHTTP(port: gallery.port).send("POST", "/api/images/nowhere/signed-urls", headers: admin, body: [])
        #expect(unknownPath.status == 404, "\(unknownPath.text)")
        let fine = try post(admin, "")
        #expect(fine.status == 201 && fine.header("cache-control") == "no-store")
        // A JSON integer in any spelling (JSON Schema's integer: 60.0 is 60).
        for spelled in ["60.0", "6e1", "0.6e2"] {
            let reply = try post(admin, #"{"expiresIn": \#(spelled)}"#)
            let expires = try #require(reply.json?["expires"] as? Int)
            #expect(reply.status == 201 && abs(expires - Int(Date().timeIntervalSince1970) - 60) <= 5, "\(spelled)")
        }
    }

    @Test func theAccessLogNamesTheTokenButNeverItsTag() throws {
        let token = SignedToken(keyID: 1, expires: 1_900_000_000, ids: ["qsecret"]).text(signedWith: .random(id: 1))
        let request = Request(method: "GET", rawPath: "/signed/\(token)/dzi/qsecret.dzi")
        let exchange = CompletedExchange(request: request, status: 200, bytesSent: 10, seconds: 0.001, completedNormally: true)
        for format in AccessLog.Format.allCases {
            let line = AccessLog(format: format).line(exchange, route: "dzi_descriptor", at: AccessLog.now())
            #expect(line.contains("/signed/1.1900000000.qsecret.-/dzi/qsecret.dzi") && !line.contains(String(token.suffix(64))), "\(line)")
        }
    }
}

/// Retiring a key (deleting its row) is how an operator revokes what it signed: the keyring says so at its
/// next read of the catalog, and the server then drops every signed answer it kept in memory.
@Suite struct KeyRetirementTests {
    @Test func theKeyringTellsWhenAKeyIsRetired() throws {
        let folder = try TestScratch.folder("key-retirement")
        let database = try SQLiteRatingStore(dataFolder: folder).database
        let keys = ViewerKeys(database: database)
        let keyring = try ViewerKeyring(store: keys, refreshSeconds: 0)
        let retirements = Mutex(0)
        keyring.onRetired { retirements.withLock { $0 += 1 } }
        try keys.rotate()
        #expect(keyring.current.map(\.id) == [2, 1])
        #expect(retirements.withLock { $0 } == 0)  // a key added retires nothing
        _ = try database.writing { try $0.execute("DELETE FROM viewer_keys WHERE id = 1") }
        #expect(keyring.current.map(\.id) == [2])
        #expect(retirements.withLock { $0 } == 1)
    }

    /// A token verified once is remembered (its HMAC is not computed per tile), and forgotten when its key goes.
    @Test func aRememberedTokenIsRefusedOnceItsKeyIsRetired() throws {
        let folder = try TestScratch.folder("key-retirement-cache")
        let database = try SQLiteRatingStore(dataFolder: folder).database
        let keys = ViewerKeys(database: database)
        let keyring = try ViewerKeyring(store: keys, refreshSeconds: 0)
        let access = AccessControl(keyring: keyring, adminToken: nil)
        keyring.onRetired { access.forgetVerified() }
        let old = try #require(keyring.current.first)
        try keys.rotate()
        let text = SignedToken(keyID: old.id, expires: Int(Date().timeIntervalSince1970) + 600, ids: ["a"]).text(signedWith: old)
        let request = Request(method: "GET", rawPath: "/signed/\(text)/dzi/a.dzi")
        let segments = try #require(request.pathSegments)
        for _ in 0..<2 { #expect(try access.mounted(request, segments: segments).2.ids == ["a"]) }
        _ = try database.writing { try $0.execute("DELETE FROM viewer_keys WHERE id = ?", .integer(Int64(old.id))) }
        #expect(throws: APIError.self) { try access.mounted(request, segments: segments) }
    }
}
