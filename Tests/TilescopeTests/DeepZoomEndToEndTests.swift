import Foundation
import TestSupport
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// Deep Zoom over real HTTP: descriptor, tiles, preview, validators, CORS, HEAD, errors.
@Suite struct DeepZoomEndToEndTests {
    /// One server for these read-only tests: a wide JPEG, a tall PNG and a file libvips cannot read.
    static let shared: TestServer = {
        let server = try! TestServer(label: "dzi") { folder in
            try TestImages.writeJPEG(width: 1500, height: 500, to: folder + "/Wide Shot.jpg")
            try TestImages.writePNG(width: 300, height: 900, to: folder + "/tall.png", seed: 1)
            try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/broken.jpg"))
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var server: TestServer { Self.shared }

    func version(_ id: String) throws -> String {
        try #require(server.get("/api/images/\(id)").json?["version"] as? String)
    }

    @Test func imageListReportsEveryImageWithItsStatus() throws {
        let reply = try server.get("/api/images")
        #expect(reply.status == 200)
        #expect(reply.header("content-type")?.hasPrefix("application/json") == true)
        let images = try #require(reply.json?["images"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: images.map { ($0["id"] as! String, $0) })
        #expect(Set(byID.keys) == ["wide-shot", "tall", "broken"])
        let wide = try #require(byID["wide-shot"])
        #expect(wide["status"] as? String == "ready")
        #expect(wide["width"] as? Int == 1500 && wide["height"] as? Int == 500)
        #expect(wide["tileSize"] as? Int == 254 && wide["overlap"] as? Int == 1 && wide["maxLevel"] as? Int == 11)
        #expect(wide["title"] as? String == "Wide Shot")
        #expect(wide.keys.contains("rating"))
        let urls = try #require(wide["urls"] as? [String: Any])
        let version = try #require(wide["version"] as? String)
        #expect(urls["dzi"] as? String == "/dzi/wide-shot.dzi?v=\(version)")
        #expect(urls["preview"] as? String == "/images/wide-shot/preview.jpeg?v=\(version)")
        let broken = try #require(byID["broken"])
        #expect(broken["status"] as? String == "failed")
        #expect((broken["reason"] as? String)?.isEmpty == false)
    }

    /// `urls.formats` names every tile format this server makes, and each one's URLs answer in it: the client
    /// takes them as they are (`Public/js/tiles/TileFormat.js`), so they must be URLs the server serves.
    @Test func everyFormatTheImageOffersIsServedAtItsURLs() throws {
        let image = try #require(server.get("/api/images/wide-shot").json)
        let urls = try #require(image["urls"] as? [String: Any])
        let formats = try #require(urls["formats"] as? [String: [String: String]])
        #expect(Set(formats.keys) == Set(["jpeg", "webp"] + (EncodedFormat.avif.isAvailable ? ["avif"] : [])))
        #expect(formats["jpeg"]?["tiles"] == urls["tiles"] as? String && formats["jpeg"]?["preview"] == urls["preview"] as? String)
        for (format, links) in formats {
            let template = try #require(links["tiles"])
            let tile = template.replacingOccurrences(of: "{level}", with: "11").replacingOccurrences(of: "{col}", with: "1")
                .replacingOccurrences(of: "{row}", with: "0")
            let reply = try server.get(tile)
            #expect(reply.status == 200, "\(tile)")
            // A tile not made yet, or no smaller made, is the JPEG's bytes (docs/api.md#tile-formats).
            #expect(["image/\(format)", "image/jpeg"].contains(reply.header("content-type") ?? ""), "\(tile)")
            let preview = try #require(links["preview"])
            #expect(try server.get(preview).status == 200, "\(preview)")
            #expect(preview.contains(format == "avif" ? "/preview.avif?" : "/preview.jpeg?"), "\(preview)")
        }
    }

    @Test func descriptorIsDeepZoomXML() throws {
        let reply = try server.get("/dzi/wide-shot.dzi")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/xml")
        #expect(reply.text.contains(#"TileSize="254""#) && reply.text.contains(#"Overlap="1""#))
        #expect(reply.text.contains(#"Width="1500""#) && reply.text.contains(#"Height="500""#))
        #expect(reply.text.contains(#"Format="jpeg""#))
    }

    @Test func everyTileHasTheSizeDeepZoomPromises() throws {
        let pyramid = Pyramid(width: 300, height: 900)
        let connection = try RawHTTP(port: server.port)  // one keep-alive connection for all of them
        for level in [0, 5, 8, pyramid.maxLevel] {
            let grid = pyramid.tileGrid(ofLevel: level)
            for column in 0..<grid.columns {
                for row in 0..<grid.rows {
                    let reply = try connection.send("GET", "/dzi/tall_files/\(level)/\(column)_\(row).jpeg")
                    #expect(reply.status == 200)
                    #expect(reply.header("content-type") == "image/jpeg")
                    let tile = try VImage.fromJPEG(reply.body)
                    let rect = pyramid.tileRect(level: level, column: column, row: row)
                    #expect(tile.width == rect.width && tile.height == rect.height)
                }
            }
        }
        #expect(!connection.isClosedByServer())
    }

    @Test func previewIsThePreviewLevel() throws {
        let reply = try server.get("/images/wide-shot/preview.jpeg")
        #expect(reply.status == 200)
        let preview = try VImage.fromJPEG(reply.body)
        let pyramid = Pyramid(width: 1500, height: 500)
        #expect(PixelSize(width: preview.width, height: preview.height) == pyramid.size(ofLevel: pyramid.previewLevel()))
        #expect(preview.width == 750 && preview.height == 250)
    }

    @Test func versionedURLsAreImmutableAndOthersRevalidate() throws {
        let version = try version("wide-shot")
        let current = try server.get("/dzi/wide-shot_files/11/0_0.jpeg?v=\(version)")
        #expect(current.header("cache-control") == "public, max-age=31536000, immutable")
        let plain = try server.get("/dzi/wide-shot_files/11/0_0.jpeg")
        #expect(plain.header("cache-control") == "public, no-cache")
        let outdated = try server.get("/dzi/wide-shot_files/11/0_0.jpeg?v=0000000000000000")
        #expect(outdated.header("cache-control") == "public, no-cache")
        #expect(current.header("etag") == "\"\(version)-11-0-0\"")
        #expect(current.body == plain.body)
    }

    @Test func matchingETagsGet304() throws {
        let first = try server.get("/dzi/wide-shot_files/10/1_0.jpeg")
        let etag = try #require(first.header("etag"))
        for header in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let again = try server.get("/dzi/wide-shot_files/10/1_0.jpeg", headers: ["If-None-Match": header])
            #expect(again.status == 304, "If-None-Match: \(header)")
            #expect(again.body.isEmpty)
            #expect(again.header("etag") == etag)
        }
        let changed = try server.get("/dzi/wide-shot_files/10/1_0.jpeg", headers: ["If-None-Match": "\"stale\""])
        #expect(changed.status == 200)
        for path in ["/dzi/wide-shot.dzi", "/images/wide-shot/preview.jpeg"] {
            let tag = try #require(try server.get(path).header("etag"))
            #expect(try server.get(path, headers: ["If-None-Match": tag]).status == 304)
        }
    }

    @Test func headSendsHeadersOnly() throws {
        let connection = try RawHTTP(port: server.port)
        let get = try connection.send("GET", "/dzi/wide-shot_files/9/0_0.jpeg")
        let head = try connection.send("HEAD", "/dzi/wide-shot_files/9/0_0.jpeg")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("content-length") == String(get.body.count))
        #expect(head.header("etag") == get.header("etag"))
        let after = try connection.send("GET", "/dzi/wide-shot.dzi")  // the connection is still in step
        #expect(after.status == 200)
    }

    @Test func corsOnEveryResponseAndPreflight() throws {
        for path in ["/dzi/wide-shot.dzi", "/dzi/nope.dzi", "/api/images", "/dzi/wide-shot_files/x/0_0.jpeg"] {
            #expect(try server.get(path).header("access-control-allow-origin") == "*", "\(path)")
        }
        let preflight = try RawHTTP(port: server.port).send("OPTIONS", "/dzi/wide-shot_files/0/0_0.jpeg", headers: [
            "Origin": "https://example.org", "Access-Control-Request-Method": "GET",
        ])
        #expect(preflight.status == 204)
        #expect(preflight.header("access-control-allow-origin") == "*")
        #expect(preflight.header("access-control-allow-methods")?.contains("GET") == true)
    }

    @Test func serverTimingOnResponses() throws {
        let reply = try server.get("/dzi/wide-shot_files/0/0_0.jpeg")
        #expect(reply.header("server-timing")?.hasPrefix("total;dur=") == true)
    }

    @Test(arguments: [
        ("/dzi/nope.dzi", 404, "not_found"),
        ("/dzi/nope_files/0/0_0.jpeg", 404, "not_found"),
        ("/images/nope/preview.jpeg", 404, "not_found"),
        ("/api/images/nope", 404, "not_found"),
        ("/dzi/wide-shot_files/12/0_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/-1/0_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/x/0_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/11/6_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/11/0_2.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/11/-1_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/11/1.5_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/11/0_0_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/99999999999/0_0.jpeg", 400, "bad_request"),
        ("/dzi/wide-shot_files/11/0_0.png", 404, "not_found"),
        ("/dzi/broken_files/0/0_0.jpeg", 404, "failed"),
        ("/dzi/broken.dzi", 404, "failed"),
        ("/no/such/page.html", 404, "not_found"),
        ("/api/nothing", 404, "not_found"),
        ("/%zz", 400, "bad_request"),
    ])
    func errorsAreJSONWithTheRightStatus(path: String, status: Int, code: String) throws {
        let reply = try server.get(path)
        #expect(reply.status == status, "\(path)")
        #expect(reply.header("content-type")?.hasPrefix("application/json") == true)
        #expect(reply.json?["error"] as? String == code, "\(path): \(reply.text)")
        #expect((reply.json?["message"] as? String)?.isEmpty == false)
    }

    @Test func wrongMethodsGet405WithAllow() throws {
        for (method, path) in [("POST", "/dzi/wide-shot.dzi"), ("DELETE", "/dzi/wide-shot_files/0/0_0.jpeg"),
                               ("PUT", "/images/wide-shot/preview.jpeg"), ("PATCH", "/api/images")] {
            let reply = try RawHTTP(port: server.port).send(method, path)
            #expect(reply.status == 405, "\(method) \(path)")
            #expect(reply.header("allow")?.contains("GET") == true)
            #expect(reply.json?["error"] as? String == "method_not_allowed")
        }
    }

    @Test(arguments: [
        "/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2F..%2Fetc%2Fpasswd",
        "/dzi/..%2F..%2F..%2Fetc%2Fpasswd.dzi", "/dzi/%2e%2e_files/0/0_0.jpeg", "/images/..%2Fpyramids/preview.jpeg",
        "/css/%2e%2e/%2e%2e/Package.swift", "/index.html%00.png", "/%00", "/.git/config", "/./index.html",
        "/dzi/wide-shot_files/11/..%2F..%2F..%2Fpyramid.json", "/\\..\\..\\etc\\passwd",
    ])
    func traversalNeverLeavesTheFolders(path: String) throws {
        let reply = try server.get(path)
        #expect([400, 404].contains(reply.status), "\(path) -> \(reply.status)")
        #expect(!reply.text.contains("root:"))
        #expect(!reply.text.contains("swift-tools-version"))
    }

    @Test func absurdlyLongPathsAreRefused() throws {
        let reply = try server.get("/dzi/" + String(repeating: "a", count: 3000) + ".dzi")
        #expect([414, 431].contains(reply.status))
    }

    /// Every file of the client, with the content type of its kind.
    @Test func publicFolderIsServedWithContentTypes() throws {
        let index = try server.get("/")
        #expect(index.status == 200)
        #expect(index.header("content-type") == "text/html; charset=utf-8")
        #expect(try server.get("/index.html").body == index.body)
        let root = TestServer.repositoryRoot + "/Public"
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder) && !isFolder.boolValue
        }
        let types = ["html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"]
        #expect(files.count >= 5)
        for file in files {
            let reply = try server.get("/" + file)
            #expect(reply.status == 200, "\(file)")
            let ext = (file as NSString).pathExtension
            #expect(reply.header("content-type") == types[ext], "\(file): \(reply.header("content-type") ?? "none")")
            #expect(reply.body == [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/" + file))), "\(file)")
        }
    }
}

extension VImage {
    /// Decodes JPEG bytes received over HTTP, through a temporary file.
    static func fromJPEG(_ bytes: [UInt8]) throws -> VImage {
        let path = NSTemporaryDirectory() + "tilescope-reply-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = try VImage.open(path)
        _ = try image.pixels()  // decode now, before the file goes
        return image
    }
}
