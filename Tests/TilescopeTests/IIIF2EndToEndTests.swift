import Foundation
import TestSupport
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// IIIF Image API 2.1 beside 3.0 over real HTTP: its info.json, its size syntax, its canonical
/// Link header, the same pixels as 3.0 from the one renderer, and its errors.
@Suite struct IIIF2EndToEndTests {
    static let shared: TestServer = {
        let server = try! TestServer(label: "iiif2") { folder in
            try TestImages.writePNG(width: 1500, height: 1000, to: folder + "/scene.png", seed: 5)
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var server: TestServer { Self.shared }

    func decodedSize(_ bytes: [UInt8]) throws -> PixelSize {
        let path = NSTemporaryDirectory() + "tilescope-iiif2-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = try VImage.open(path)
        return PixelSize(width: image.width, height: image.height)
    }

    @Test func infoJSONIsVersion21() throws {
        let reply = try server.get("/iiif/2/scene/info.json")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/json")
        #expect(reply.header("link") == "<http://iiif.io/api/image/2/level2.json>;rel=\"profile\"")
        let info = try #require(reply.json)
        #expect(info["@context"] as? String == "http://iiif.io/api/image/2/context.json")
        #expect(info["@id"] as? String == "http://127.0.0.1/iiif/2/scene")
        #expect(info["id"] == nil && info["type"] == nil)
        #expect(info["protocol"] as? String == "http://iiif.io/api/image")
        #expect(info["width"] as? Int == 1500 && info["height"] as? Int == 1000)
        let profile = try #require(info["profile"] as? [Any])
        #expect(profile.count == 2)
        #expect(profile.first as? String == "http://iiif.io/api/image/2/level2.json")
        let offer = try #require(profile.last as? [String: Any])
        #expect(offer["formats"] as? [String]
                == ["jpg", "png", "webp", "gif", "tif", "jp2"] + (EncodedFormat.avif.isAvailable ? ["avif"] : []))
        #expect(offer["qualities"] as? [String] == ["default", "color", "gray", "bitonal"])
        let supports = try #require(offer["supports"] as? [String])
        for feature in ["sizeAboveFull", "mirroring", "rotationArbitrary", "canonicalLinkHeader", "regionSquare", "cors"] {
            #expect(supports.contains(feature), "\(feature)")
        }
        #expect(offer["maxArea"] as? Int == 4096 * 4096)
        let tiles = try #require((info["tiles"] as? [[String: Any]])?.first)
        #expect(tiles["width"] as? Int == 254 && tiles["height"] as? Int == 254)
        #expect((tiles["scaleFactors"] as? [Int])?.first == 1)
        #expect((info["sizes"] as? [[String: Int]])?.last == ["width": 1500, "height": 1000])
        let ld = try server.get("/iiif/2/scene/info.json", headers: ["Accept": "application/ld+json"])
        #expect(ld.header("content-type") == "application/ld+json;profile=\"http://iiif.io/api/image/2/context.json\"")
        #expect(ld.header("etag") != reply.header("etag"))
        let etag = try #require(reply.header("etag"))
        let version = try #require(server.service.library.record("scene")?.version)
        #expect(etag == TileETag(version: version, .iiifInfo(apiVersion: 2, base: "http://127.0.0.1/iiif/2/scene", jsonLD: false)).text)
        #expect(try server.get("/iiif/2/scene/info.json", headers: ["If-None-Match": etag]).status == 304)
    }

    @Test func idFollowsForwardedHeaders() throws {
        let reply = try server.get("/iiif/2/scene/info.json", headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "tiles.example.org"])
        #expect(reply.json?["@id"] as? String == "https://tiles.example.org/iiif/2/scene")
    }

    @Test func baseURIRedirectsToInfo() throws {
        for path in ["/iiif/2/scene", "/iiif/2/scene/"] {
            let reply = try server.get(path)
            #expect(reply.status == 303)
            #expect(reply.header("location") == "http://127.0.0.1/iiif/2/scene/info.json")
        }
        #expect(try server.get("/iiif/2/nothing").status == 404)
    }

    @Test(arguments: [
        ("full", 1500, 1000), ("max", 1500, 1000), ("150,", 150, 100), (",100", 150, 100), ("pct:25", 375, 250),
        ("120,90", 120, 90), ("!120,120", 120, 80), ("1800,", 1800, 1200), ("pct:110", 1650, 1100),
    ])
    func sizesOf21(size: String, width: Int, height: Int) throws {
        let reply = try server.get("/iiif/2/scene/full/\(size)/0/default.jpg")
        try #require(reply.status == 200, "\(size): \(reply.status) \(reply.text)")
        let decoded = try decodedSize(reply.body)
        #expect(decoded == PixelSize(width: width, height: height), "\(size)")
    }

    /// One renderer: the same request in 2.1 and 3.0 syntax gives the same bytes.
    @Test func samePixelsAs30() throws {
        for (v2, v3) in [("100,50,700,400/350,/0/default.png", "100,50,700,400/350,/0/default.png"),
                         ("square/full/!90/gray.png", "square/max/!90/gray.png"),
                         ("pct:10,10,50,50/1000,/0/default.png", "pct:10,10,50,50/^1000,/0/default.png")] {
            let two = try server.get("/iiif/2/scene/" + v2)
            let three = try server.get("/iiif/3/scene/" + v3)
            #expect(two.status == 200 && three.status == 200, "\(v2)")
            #expect(two.body == three.body, "\(v2)")
        }
    }

    @Test(arguments: [
        ("full/full/0/default.jpg", "full/full/0/default.jpg"),
        ("0,0,1500,1000/pct:50/360/default.jpg", "full/750,/0/default.jpg"),
        ("pct:0,0,50,50/300,200/!0/gray.png", "0,0,750,500/300,/!0/gray.png"),
        ("square/100,40/90/color.jpg", "250,0,1000,1000/100,40/90/color.jpg"),
        ("full/!300,300/0/default.jpg", "full/300,/0/default.jpg"),
    ])
    func canonicalLinkHeaderUses21Forms(path: String, canonical: String) throws {
        let reply = try server.get("/iiif/2/scene/" + path)
        #expect(reply.status == 200, "\(path): \(reply.text)")
        let link = try #require(reply.header("link"))
        #expect(link.contains("<http://127.0.0.1/iiif/2/scene/\(canonical)>;rel=\"canonical\""), "\(link)")
        #expect(link.contains("<http://iiif.io/api/image/2/level2.json>;rel=\"profile\""))
    }

    @Test(arguments: [
        ("/iiif/2/nothing/info.json", 404), ("/iiif/2/nothing/full/full/0/default.jpg", 404),
        ("/iiif/2/scene/full/^max/0/default.jpg", 400), ("/iiif/2/scene/full/^200,/0/default.jpg", 400),
        ("/iiif/2/scene/full/0,/0/default.jpg", 400), ("/iiif/2/scene/full/abc/0/default.jpg", 400),
        ("/iiif/2/scene/full/999999999,/0/default.jpg", 400), ("/iiif/2/scene/full/pct:999999999/0/default.jpg", 400),
        ("/iiif/2/scene/full/full/0/default.xyz", 400), ("/iiif/2/scene/full/full/0/grey.jpg", 400),
        ("/iiif/2/scene/2000,0,10,10/full/0/default.jpg", 400), ("/iiif/2/scene/full/full/361/default.jpg", 400),
        ("/iiif/2/scene/info", 404), ("/iiif/2/scene/full/full/0", 404),
        // A thin size turned by a free angle: a 92360x11371 bounding box, rendered for 7 s before.
        ("/iiif/2/scene/0,0,256,256/93050,31/7/default.tif", 400), ("/iiif/3/scene/0,0,256,256/^93050,31/7/default.tif", 400),
    ])
    func errorsAreJSONWithCORS(path: String, status: Int) throws {
        let reply = try server.get(path)
        #expect(reply.status == status, "\(path): \(reply.status)")
        #expect(reply.json?["message"] is String, "\(path)")
        #expect(reply.header("access-control-allow-origin") == "*")
    }

    /// 2.1 has no `^` (its sizes above the region's need none): its errors quote the request in 2.1's
    /// syntax, never 3.0's `^pct:` (issue 37), and name the parameter.
    @Test(arguments: [
        ("pct:999999999,0,10,10/full/0/default.jpg", "region 'pct:999999999,0,10,10' starts outside"),
        ("full/pct:999999999/0/default.jpg", "size 'pct:999999999' gives"),
        ("pct:0,0,10,10/pct:999999/0/default.jpg", "size 'pct:999999' gives"),
        ("full/pct:0.001/0/default.jpg", "size 'pct:0.001' leaves less than one pixel"),
        ("full/999999,/0/default.jpg", "size '999999,' gives"),
        ("full/,999999/0/default.jpg", "size ',999999' gives"),
        ("full/99999,99999/0/default.jpg", "size '99999,99999' gives"),
        ("full/!999999,99999/0/default.jpg", "size '!999999,99999' gives"),
        ("0,0,1,1/999999,/0/default.jpg", "size '999999,' gives"),
    ])
    func errorsSpeak21(path: String, message: String) throws {
        let reply = try server.get("/iiif/2/scene/" + path)
        #expect(reply.status == 400, "\(path): \(reply.status)")
        let text = try #require(reply.json?["message"] as? String)
        #expect(text.hasPrefix(message), "\(path): \(text)")
        #expect(!text.contains("^"), "\(path): \(text)")
        // The same request in 3.0, with the `^` it needs there, quotes it with the `^`.
        let size = path.split(separator: "/")[1]
        guard size.first != "f" && !path.hasPrefix("pct:999999999") else { return }
        let v3 = try server.get("/iiif/3/scene/" + path.replacingOccurrences(of: "/\(size)/", with: "/^\(size)/"))
        #expect((v3.json?["message"] as? String)?.contains("size '^\(size)'") == true, "\(v3.text)")
    }
}

/// The 2.1 size parameter on its own: parsing, `maxArea` and canonical forms.
@Suite struct IIIF2SizeTests {
    let region = PixelSize(width: 1500, height: 1000)

    @Test func parsesEvery21Form() throws {
        #expect(try IIIF2Size.parse("full").kind == .full)
        #expect(try IIIF2Size.parse("max").kind == .scaled(IIIFSize(kind: .max, upscale: true)))
        #expect(try IIIF2Size.parse("150,").kind == .scaled(IIIFSize(kind: .width(150), upscale: true)))
        #expect(try IIIF2Size.parse("!10,20").kind == .scaled(IIIFSize(kind: .confined(width: 10, height: 20), upscale: true)))
        for bad in ["^max", "^150,", "", ",", "full,", "pct:", "pct:0", "1,2,3", "-1,", "1e3,", "!full"] {
            #expect(throws: APIError.self, "\(bad)") { try IIIF2Size.parse(bad) }
        }
    }

    @Test func fullBeyondMaxAreaIsRefusedAndMaxFits() throws {
        #expect(try IIIF2Size.parse("full").resolve(region: region, maxArea: 1500 * 1000) == region)
        #expect(throws: APIError.self) { try IIIF2Size.parse("full").resolve(region: region, maxArea: 1500 * 999) }
        let max = try IIIF2Size.parse("max").resolve(region: region, maxArea: 1500 * 999)
        #expect(max.width * max.height <= 1500 * 999)
        // Sizes beyond any Int product are refused by maxArea, not by a trap.
        let one = PixelSize(width: 1, height: 1)
        #expect(throws: APIError.self) { try IIIF2Size.parse("999999999,").resolve(region: one, maxArea: 1 << 24) }
        #expect(throws: APIError.self) { try IIIF2Size.parse("999999999,999999999").resolve(region: one, maxArea: 1 << 24) }
    }

    @Test func canonicalForms() {
        #expect(IIIF2Size.canonical(region, region: region) == "full")
        #expect(IIIF2Size.canonical(PixelSize(width: 150, height: 100), region: region) == "150,")
        #expect(IIIF2Size.canonical(PixelSize(width: 150, height: 99), region: region) == "150,99")
        #expect(IIIF2Size.canonical(PixelSize(width: 1, height: 1), region: PixelSize(width: 1000, height: 1)) == "1,")
    }
}

/// The IIIF paths beside 3.0's, as the router reads them, and the ids behind `--public-url`.
@Suite struct IIIFPathTests {
    @Test func routerReadsThe21AndPresentationPaths() throws {
        #expect(try Endpoint.parse(["iiif", "2", "x"]) == .iiif2Base(id: "x"))
        #expect(try Endpoint.parse(["iiif", "2", "x", "info.json"]) == .iiif2Info(id: "x"))
        #expect(try Endpoint.parse(["iiif", "2", "a/b", "full", "full", "0", "default.jpg"])
            == .iiif2Image(id: "a/b", region: "full", size: "full", rotation: "0", qualityAndFormat: "default.jpg"))
        #expect(try Endpoint.parse(["iiif", "presentation", "collection.json"]) == .presentationCollection)
        #expect(try Endpoint.parse(["iiif", "presentation", "gallery", "manifest.json"]) == .presentationGallery)
        #expect(try Endpoint.parse(["iiif", "presentation", "x", "manifest.json"]) == .presentationManifest(id: "x"))
        #expect(try Endpoint.parse(["iiif", "presentation", "image", "gallery", "manifest.json"])
            == .presentationManifest(id: "gallery"))
        for bad in [["iiif", "4", "x", "info.json"], ["iiif", "2", "", "info.json"], ["iiif", "presentation"],
                    ["iiif", "presentation", "x", "canvas"], ["iiif", "presentation", "image", "", "manifest.json"]] {
            #expect(throws: APIError.self, "\(bad)") { try Endpoint.parse(bad) }
        }
    }

    @Test func presentationSettings() throws {
        func parse(_ arguments: [String]) throws -> ServeConfig {
            var config = ServeConfig()
            var positional: [String] = []
            try SettingsParser.parse(arguments, environment: [:], settings: ServeConfig.settings, into: &config,
                                     positional: &positional, switches: [:])
            return config
        }
        let config = try parse(["--iiif-rights", "http://rightsstatements.org/vocab/InC/1.0/",
                                "--iiif-attribution", "Museum", "--iiif-collection-page", "7"])
        #expect(config.iiifRights == "http://rightsstatements.org/vocab/InC/1.0/")
        #expect(config.iiifAttribution == "Museum" && config.iiifCollectionPageSize == 7)
        #expect(try parse([]).iiifCollectionPageSize == 100)
        for bad in [["--iiif-rights", "https://example.org/my-licence"], ["--iiif-rights", "all rights reserved"],
                    ["--iiif-collection-page", "0"], ["--iiif-attribution", String(repeating: "x", count: 1001)]] {
            #expect(throws: (any Error).self, "\(bad.first!)") { try parse(bad) }
        }
    }

    @Test func configuredPublicURLMakesEveryID() {
        let service = IIIFService(publicURL: "https://example.org/tiles/")
        let request = HTTPServerRequest(method: "GET", rawPath: "/iiif/2/x", headers: ["host": "internal:8080"])
        #expect(service.url("/iiif/2/a%20b", request: request) == "https://example.org/tiles/iiif/2/a%20b")
        let builder = PresentationBuilder(url: { service.url($0, request: request) }, maxArea: 100, rights: nil,
                                          attribution: nil, sortQuery: "?sort=rating")
        #expect(builder.manifestID("a b") == "https://example.org/tiles/iiif/presentation/a%20b/manifest.json")
        #expect(builder.collectionID(page: 2) == "https://example.org/tiles/iiif/presentation/collection.json?sort=rating&page=2")
        #expect(builder.galleryManifestID == "https://example.org/tiles/iiif/presentation/gallery/manifest.json?sort=rating")
    }
}
