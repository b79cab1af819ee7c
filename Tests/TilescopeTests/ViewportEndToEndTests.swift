import Foundation
import ScrollGeometry
import Testing
import TestSupport
@testable import Tilescope

/// The viewport API and the gallery ring over real HTTP.
@Suite struct ViewportEndToEndTests {
    static let shared: TestServer = {
        let server = try! TestServer(label: "viewport") { folder in
            try TestImages.writePNG(width: 3000, height: 2000, to: folder + "/a.png")
            try TestImages.writePNG(width: 500, height: 900, to: folder + "/b.png", seed: 1)
            try TestImages.writePNG(width: 700, height: 700, to: folder + "/c.png", seed: 2)
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var server: TestServer { Self.shared }

    @Test func getAnswersTheGeometryRules() throws {
        let reply = try server.get("/api/images/a/viewport?width=800&height=600&scale=2&zoomScale=0.5&offsetX=100&offsetY=50")
        #expect(reply.status == 200)
        let json = try #require(reply.json)
        #expect(json["zoomScale"] as? Double == 0.5)
        #expect(json["minimumZoomScale"] as? Double == min(800.0 / 3000, 600.0 / 2000))
        #expect(json["resolution"] as? String == "high")
        // d = 0.5 * 2 = 1: full resolution, the top level.
        #expect(json["level"] as? Int == 12)
        let tiles = try #require(json["tiles"] as? [[Int]])
        #expect(!tiles.isEmpty && tiles.allSatisfy { $0.count == 3 && $0[0] == 12 })
        let image = try #require(server.get("/api/images/a").json)
        let version = try #require(image["version"] as? String)
        // The tile URL template, exactly as the image JSON hands it out; the tiles carry no URL of their own.
        let template = try #require(json["tileURL"] as? String)
        #expect(template == (image["urls"] as? [String: Any])?["tiles"] as? String)
        #expect(template.hasSuffix("?v=\(version)"))
        for tile in tiles {
            let url = try Self.fill(template, ["level": tile[0], "column": tile[1], "row": tile[2]])
            #expect(try server.get(url).status == 200, "\(url)")  // every listed tile exists
        }
        // Every tile's column and row have a frame.
        let frames = try #require(json["frames"] as? [[String: Any]])
        #expect(frames.count == 1 && frames[0]["level"] as? Int == 12)
        let columns = Set((frames[0]["columns"] as? [[String: Any]] ?? []).compactMap { $0["column"] as? Int })
        let rows = Set((frames[0]["rows"] as? [[String: Any]] ?? []).compactMap { $0["row"] as? Int })
        #expect(columns == Set(tiles.map { $0[1] }) && rows == Set(tiles.map { $0[2] }))
    }

    /// `tileFrames=1` (or `"tileFrames": true` in a body) lists every tile as an object with its frame, and no
    /// `frames`; the rest of the answer is the default one's, byte for byte.
    @Test func tileFramesListsEachTilesFrame() throws {
        let view = "width=800&height=600&scale=2&zoomScale=0.5&offsetX=100&offsetY=50&prefetch=1"
        let grid = try server.get("/api/images/a/viewport?\(view)")
        let objects = try server.get("/api/images/a/viewport?\(view)&tileFrames=1")
        #expect(grid.status == 200 && objects.status == 200)
        let gridJSON = try #require(grid.json), objectsJSON = try #require(objects.json)
        #expect(objectsJSON["frames"] == nil && gridJSON["frames"] != nil)
        for key in ["tiles", "prefetch"] {
            let triples = try #require(gridJSON[key] as? [[Int]])
            let listed = try #require(objectsJSON[key] as? [[String: Any]])
            #expect(triples.count == listed.count && !triples.isEmpty)
            #expect(triples == listed.map { [$0["level"] as! Int, $0["column"] as! Int, $0["row"] as! Int] })
        }
        let gridText = String(decoding: grid.body, as: UTF8.self), objectsText = String(decoding: objects.body, as: UTF8.self)
        let head = try #require(gridText.range(of: #","tiles":["#)), objectsHead = try #require(objectsText.range(of: #","tiles":["#))
        #expect(gridText[..<head.lowerBound] == objectsText[..<objectsHead.lowerBound])
        let post = try RawHTTP(port: server.port).send(
            "POST", "/api/images/a/viewport", headers: ["Content-Type": "application/json"],
            body: Array(#"{"width": 800, "height": 600, "scale": 2, "zoomScale": 0.5, "offsetX": 100, "offsetY": 50, "prefetch": true, "tileFrames": true}"#.utf8))
        #expect(post.status == 200 && post.body == objects.body)
        let bad = try server.get("/api/images/a/viewport?\(view)&tileFrames=yes")
        #expect(bad.status == 400)
        #expect(bad.json?["message"] as? String == "tileFrames must be 1 or 0 (true or false)")
    }

    /// `{level}`, `{col}` and `{row}` of the answer's `tileURL`, filled in for one tile.
    static func fill(_ template: String, _ tile: [String: Any]) throws -> String {
        let level = try #require(tile["level"] as? Int), column = try #require(tile["column"] as? Int)
        let row = try #require(tile["row"] as? Int)
        return template.replacingOccurrences(of: "{level}", with: "\(level)")
            .replacingOccurrences(of: "{col}", with: "\(column)").replacingOccurrences(of: "{row}", with: "\(row)")
    }

    /// `tileURLs=1` (or `"tileURLs": true` in a body) puts each tile's URL back, the template filled in, and
    /// drops the template; every other byte is the `tileFrames=1` answer's.
    @Test func tileURLsListsEachTilesURL() throws {
        let view = "width=800&height=600&scale=2&zoomScale=0.5&offsetX=100&offsetY=50&prefetch=1"
        let short = try server.get("/api/images/a/viewport?\(view)&tileFrames=1")
        let long = try server.get("/api/images/a/viewport?\(view)&tileURLs=1")
        #expect(short.status == 200 && long.status == 200)
        let shortJSON = try #require(short.json), longJSON = try #require(long.json)
        let template = try #require(shortJSON["tileURL"] as? String)
        #expect(longJSON["tileURL"] == nil)
        var listed = 0
        for key in ["tiles", "prefetch"] {
            let shortTiles = try #require(shortJSON[key] as? [[String: Any]])
            let longTiles = try #require(longJSON[key] as? [[String: Any]])
            #expect(shortTiles.count == longTiles.count && !shortTiles.isEmpty)
            for (a, b) in zip(shortTiles, longTiles) {
                let url = try #require(b["url"] as? String)
                #expect(url == (try Self.fill(template, a)))
                #expect(NSDictionary(dictionary: b.filter { $0.key != "url" }) == NSDictionary(dictionary: a))
                listed += 1
            }
        }
        // The rest of the answer is the same text: the long one with the URLs taken out is the short one.
        var stripped = String(decoding: long.body, as: UTF8.self)
        while let range = stripped.range(of: #","url":"/dzi/[^"]*""#, options: .regularExpression) {
            stripped.removeSubrange(range)
        }
        let withoutTemplate = String(decoding: short.body, as: UTF8.self)
            .replacingOccurrences(of: #","tileURL":"\#(template)""#, with: "")
        #expect(stripped == withoutTemplate)
        #expect(listed > 10)
        let post = try RawHTTP(port: server.port).send(
            "POST", "/api/images/a/viewport", headers: ["Content-Type": "application/json"],
            body: Array(#"{"width": 800, "height": 600, "scale": 2, "zoomScale": 0.5, "offsetX": 100, "offsetY": 50, "prefetch": true, "tileURLs": true}"#.utf8))
        #expect(post.status == 200 && post.body == long.body)
        let bad = try server.get("/api/images/a/viewport?\(view)&tileURLs=2")
        #expect(bad.status == 400)
        #expect(bad.json?["message"] as? String == "tileURLs must be 1 or 0 (true or false)")
    }

    @Test func postWithAJSONBodyEqualsGet() throws {
        let get = try server.get("/api/images/a/viewport?width=1024&height=768&zoomScale=0.2&offsetX=30&offsetY=-10&insets=10,0,20,0")
        let body = #"{"width": 1024, "height": 768, "zoomScale": 0.2, "offsetX": 30, "offsetY": -10, "insets": "10,0,20,0"}"#
        let post = try RawHTTP(port: server.port).send("POST", "/api/images/a/viewport",
                                                       headers: ["Content-Type": "application/json"], body: Array(body.utf8))
        #expect(get.status == 200 && post.status == 200)
        #expect(get.body == post.body)
    }

    @Test func lowResolutionUntilThePreviewRunsOut() throws {
        // Fit is min(700/3000, 400/2000) = 0.2; the preview (level 10, 750x500) has 0.25 pixels per pixel.
        let fit = try #require(try server.get("/api/images/a/viewport?width=700&height=400").json)
        #expect(fit["resolution"] as? String == "low")
        #expect(fit["level"] is NSNull)
        #expect((fit["tiles"] as? [Any])?.isEmpty == true)
        let threshold = try #require(fit["threshold"] as? Double)
        #expect(threshold == 0.25)
        let above = try #require(try server.get("/api/images/a/viewport?width=700&height=400&zoomScale=\(threshold * 1.01)").json)
        #expect(above["resolution"] as? String == "high")
    }

    @Test(arguments: [
        ("height=600", "width"), ("width=abc&height=600", "width"), ("width=nan&height=600", "width"),
        ("width=inf&height=600", "width"), ("width=-5&height=600", "width"), ("width=20000&height=600", "width"),
        ("width=800&height=600&scale=5", "scale"), ("width=800&height=600&zoomScale=0", "zoomScale"),
        ("width=800&height=600&insets=1,2,3", "insets"), ("width=800&height=600&insets=400,0,300,0", "insets"),
        ("width=800&height=600&minZoomScale=2&maxZoomScale=1", "minZoomScale"),
        ("width=800&height=600&zoomRect=1,2,x,4", "zoomRect"),
    ])
    func badInputIs400NamingTheField(query: String, field: String) throws {
        let reply = try server.get("/api/images/a/viewport?\(query)")
        #expect(reply.status == 400, "\(query)")
        let message = try #require(reply.json?["message"] as? String)
        #expect(message.contains(field), "\(query): \(message)")
    }

    /// Over HTTP, a huge number gets the same message from a query string and from a JSON body, and a field given
    /// twice is a 400 either way; unknown names (a cache-busting `v`) may repeat.
    @Test func hugeNumbersAndRepeatedFieldsReadTheSameFromQueryAndBody() throws {
        func message(_ reply: RawHTTP.Reply) -> String? { reply.json?["message"] as? String }
        let get = try server.get("/api/images/a/viewport?width=1e400&height=600")
        let post = try RawHTTP(port: server.port).send("POST", "/api/images/a/viewport",
                                                        body: Array(#"{"width": 1e400, "height": 600}"#.utf8))
        #expect(get.status == 400 && post.status == 400)
        #expect(message(get) == "width must be >= 0.001 and <= 16384, got 1e400")
        #expect(message(post) == message(get))

        let twice = try server.get("/api/images/a/viewport?width=800&height=600&width=900")
        #expect(twice.status == 400)
        #expect(twice.json?["error"] as? String == ViewportQueryError.code)
        #expect(message(twice) == "width is given twice")
        let twicePosted = try RawHTTP(port: server.port).send("POST", "/api/images/a/viewport",
                                                               body: Array(#"{"width": 800, "height": 600, "width": 900}"#.utf8))
        #expect(twicePosted.status == 400)
        #expect(message(twicePosted) == "width is given twice")
        #expect(try server.get("/api/images/a/viewport?width=800&height=600&v=1&v=2").status == 200)
    }

    /// The gallery's and the image list's query fields: a number beyond the accepted ones says the range, and a
    /// field given twice is a 400 naming it.
    @Test func galleryAndImageListFieldsSayTheirRangeAndRefuseRepeats() throws {
        let huge = try server.get("/api/gallery?page=99999999999999999999")
        #expect(huge.status == 400)
        #expect((huge.json?["message"] as? String)?.contains("from -9223372036854775808 to 9223372036854775807") == true,
                "\(huge.text)")
        #expect(try server.get("/api/gallery?page=9223372036854775807").status == 200)
        #expect(try server.get("/api/gallery?page=-9223372036854775808").status == 200)
        for path in ["/api/gallery?page=1&page=2", "/api/gallery?sort=name&sort=rating", "/api/gallery?image=a&image=b",
                     "/api/images?limit=5&limit=6", "/api/images?sort=name&limit=2&sort=added", "/api/images?cursor=x&cursor=y"] {
            let reply = try server.get(path)
            let name = path.split(separator: "?")[1].split(separator: "&").last!.split(separator: "=")[0]
            #expect(reply.status == 400, "\(path)")
            #expect(reply.json?["message"] as? String == "\(name) is given twice", "\(path): \(reply.text)")
        }
        #expect(try server.get("/api/gallery?page=1&_=1&_=2").status == 200)
        #expect(try server.get("/api/images?limit=1000000000000000000000").json?["message"] as? String
            == "limit must be an integer from 1 to 1000, not '1000000000000000000000'")
    }

    @Test func unknownImageIs404AndMalformedBodyIs400() throws {
        #expect(try server.get("/api/images/zzz/viewport?width=1&height=1").status == 404)
        let reply = try RawHTTP(port: server.port).send("POST", "/api/images/a/viewport", body: Array("{nope".utf8))
        #expect(reply.status == 400)
    }

    @Test func galleryIsAnEndlessRing() throws {
        let ids = ["a", "b", "c"]
        for page in [-7, -1, 0, 1, 2, 3, 100] {
            let json = try #require(try server.get("/api/gallery?page=\(page)").json)
            let wrapped = ((page % 3) + 3) % 3
            #expect(json["count"] as? Int == 3)
            #expect(json["page"] as? Int == wrapped)
            #expect((json["current"] as? [String: Any])?["id"] as? String == ids[wrapped])
            #expect((json["previous"] as? [String: Any])?["id"] as? String == ids[(wrapped + 2) % 3])
            #expect((json["next"] as? [String: Any])?["id"] as? String == ids[(wrapped + 1) % 3])
        }
        #expect(try server.get("/api/gallery?page=x").status == 400)
    }

    @Test func emptyGalleryIs404() throws {
        let empty = try TestServer(label: "empty") { _ in }
        let reply = try empty.get("/api/gallery?page=0")
        #expect(reply.status == 404)
        #expect((reply.json?["message"] as? String)?.contains("empty") == true)
    }
}
