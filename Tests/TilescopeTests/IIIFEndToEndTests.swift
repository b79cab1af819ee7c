import Foundation
import TestSupport
import HTTPServer
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// IIIF Image API 3.0 over real HTTP: pixel sizes of parameter combinations, pixels against
/// libvips doing the same on the source, info.json, redirects, validators, errors.
@Suite struct IIIFEndToEndTests {
    static let source = "scene.png"
    static let width = 1500, height = 1000

    static let shared: TestServer = {
        let server = try! TestServer(label: "iiif") { folder in
            try TestImages.writePNG(width: width, height: height, to: folder + "/" + source, seed: 2)
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var server: TestServer { Self.shared }
    var sourcePath: String { server.images + "/" + Self.source }

    /// A reply body decoded by libvips (which sniffs the format), with its pixels.
    struct Decoded {
        var width: Int, height: Int, bands: Int
        var pixels: [UInt8]
        init(_ bytes: [UInt8]) throws {
            let path = NSTemporaryDirectory() + "tilescope-iiif-\(UUID().uuidString)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let image = try VImage.open(path)
            (width, height, bands) = (image.width, image.height, image.bands)
            pixels = try image.pixels()
        }
    }

    func image(_ path: String, headers: [String: String] = [:]) throws -> (RawHTTP.Reply, Decoded) {
        let reply = try server.get("/iiif/3/scene/" + path, headers: headers)
        try #require(reply.status == 200, "\(path): \(reply.status) \(reply.text)")
        return (reply, try Decoded(reply.body))
    }

    // MARK: - Sizes

    static let regions: [(String, PixelRect)] = [
        ("full", PixelRect(x: 0, y: 0, width: 1500, height: 1000)),
        ("square", PixelRect(x: 250, y: 0, width: 1000, height: 1000)),
        ("100,50,700,400", PixelRect(x: 100, y: 50, width: 700, height: 400)),
        ("pct:10,10,50,50", PixelRect(x: 150, y: 100, width: 750, height: 500)),
        ("1200,800,999,999", PixelRect(x: 1200, y: 800, width: 300, height: 200)),
    ]

    /// Expected output size for a size parameter, worked out here independently.
    static func expectedSize(_ size: String, _ r: PixelRect) -> PixelSize {
        let w = Double(r.width), h = Double(r.height)
        switch size {
        case "max", "^max": return PixelSize(width: r.width, height: r.height)
        case "150,": return PixelSize(width: 150, height: Int((h * 150 / w).rounded()))
        case ",100": return PixelSize(width: Int((w * 100 / h).rounded()), height: 100)
        case "pct:25": return PixelSize(width: Int((w / 4).rounded()), height: Int((h / 4).rounded()))
        case "120,90": return PixelSize(width: 120, height: 90)
        case "!120,120":
            let scale = min(120 / w, 120 / h)
            return PixelSize(width: Int((w * scale).rounded()), height: Int((h * scale).rounded()))
        case "^1600,": return PixelSize(width: 1600, height: Int((h * 1600 / w).rounded()))
        default: fatalError(size)
        }
    }

    @Test(arguments: ["max", "^max", "150,", ",100", "pct:25", "120,90", "!120,120", "^1600,"])
    func everyRegionAndSizeHasTheRightPixelSize(size: String) throws {
        for (region, rect) in Self.regions {
            let (_, decoded) = try image("\(region)/\(size)/0/default.jpg")
            let expected = Self.expectedSize(size, rect)
            #expect(decoded.width == expected.width && decoded.height == expected.height,
                    "\(region)/\(size): \(decoded.width)x\(decoded.height), expected \(expected.width)x\(expected.height)")
            #expect(decoded.bands == 3)
        }
    }

    @Test(arguments: ["jpg", "png", "webp", "gif", "tif", "jp2"])
    func everyRotationQualityAndFormatHasTheRightShape(format: String) throws {
        let (w, h) = (200, 114)  // "100,50,700,400" at 200,
        for rotation in ["0", "90", "180", "270", "!0", "!90", "30", "!200.5"] {
            for quality in ["default", "color", "gray", "bitonal"] {
                let path = "100,50,700,400/200,/\(rotation)/\(quality).\(format)"
                let (reply, decoded) = try image(path)
                let mediaType = ["jpg": "image/jpeg", "png": "image/png", "webp": "image/webp", "gif": "image/gif",
                                 "tif": "image/tiff", "jp2": "image/jp2"][format]
                #expect(reply.header("content-type") == mediaType)
                let degrees = Double(rotation.trimmingCharacters(in: ["!"]))! * .pi / 180
                let turnedWidth = abs(Double(w) * cos(degrees)) + abs(Double(h) * sin(degrees))
                let turnedHeight = abs(Double(w) * sin(degrees)) + abs(Double(h) * cos(degrees))
                #expect(abs(Double(decoded.width) - turnedWidth) <= 2 && abs(Double(decoded.height) - turnedHeight) <= 2,
                        "\(path): \(decoded.width)x\(decoded.height)")
                let free = !["0", "90", "180", "270", "!0", "!90"].contains(rotation)
                let alpha = free && format != "jpg" && format != "jp2" ? 1 : 0
                let colour = quality == "gray" || quality == "bitonal" ? 1 : 3
                // GIF and WebP have no grey pixels: libvips decodes them as RGB(A) whatever was written...
                let bands = format == "gif" || format == "webp" ? 3 + alpha : colour + alpha
                // ...and GIF's palette may hold a transparent entry even when no pixel uses it.
                let extraAlpha = format == "gif" && decoded.bands == 4
                #expect(decoded.bands == bands || extraAlpha, "\(path): \(decoded.bands) bands")
                if quality == "bitonal" && (format == "png" || format == "tif" || format == "gif") {
                    #expect(decoded.pixels.allSatisfy { $0 == 0 || $0 == 255 }, "\(path) is not black and white")
                }
            }
        }
    }

    // MARK: - Pixels against libvips on the source

    /// What libvips makes of the source for the same region and size, straight from the PNG.
    func reference(_ rect: PixelRect, _ size: PixelSize) throws -> VImage {
        let cut = try VImage.open(sourcePath).crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        if size.width == rect.width && size.height == rect.height { return cut }
        return try cut.resize(horizontal: Double(size.width) / Double(rect.width),
                              vertical: Double(size.height) / Double(rect.height))
    }

    /// The served pixels must be as close to libvips's rendering of the source as the JPEG
    /// tiles allow (about 28 dB on this sharp-edged pattern at Q85), and clearly closer than
    /// the same two renderings one output pixel out of register: a wrong level, offset or
    /// scale fails that.
    func expectClose(_ served: Decoded, _ rect: PixelRect, _ size: PixelSize, _ label: String,
                     transform: (VImage) throws -> VImage = { $0 }) throws {
        let expected = try transform(reference(rect, size))
        let psnr = TestImages.psnr(served.pixels, try expected.pixels())
        let mine = try VImage.fromPixels(served.pixels, width: served.width, height: served.height, bands: served.bands)
        let offByOne = TestImages.psnr(
            try mine.crop(x: 0, y: 0, width: served.width - 1, height: served.height).pixels(),
            try expected.crop(x: 1, y: 0, width: served.width - 1, height: served.height).pixels())
        #expect(psnr > 25, "\(label): PSNR \(psnr) dB")
        #expect(psnr > offByOne + 1, "\(label): PSNR \(psnr) dB, one pixel off \(offByOne) dB")
    }

    @Test(arguments: [
        ("full/max", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 1500, height: 1000)),
        ("full/375,", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 375, height: 250)),
        ("333,77,500,421/max", PixelRect(x: 333, y: 77, width: 500, height: 421), PixelSize(width: 500, height: 421)),
        ("333,77,500,421/250,", PixelRect(x: 333, y: 77, width: 500, height: 421), PixelSize(width: 250, height: 211)),
        ("1016,0,484,508/242,", PixelRect(x: 1016, y: 0, width: 484, height: 508), PixelSize(width: 242, height: 254)),
        ("pct:40,40,10,10/max", PixelRect(x: 600, y: 400, width: 150, height: 100), PixelSize(width: 150, height: 100)),
        ("10,10,100,80/^300,", PixelRect(x: 10, y: 10, width: 100, height: 80), PixelSize(width: 300, height: 240)),
    ])
    func pixelsMatchLibvipsOnTheSource(path: String, rect: PixelRect, size: PixelSize) throws {
        let (_, served) = try image(path + "/0/default.png")
        try #require(served.width == size.width && served.height == size.height)
        try expectClose(served, rect, size, path)
    }

    @Test func mirrorRotationAndGrayMatchLibvips() throws {
        let rect = PixelRect(x: 200, y: 100, width: 600, height: 400)
        let size = PixelSize(width: 300, height: 200)
        let cases: [(String, (VImage) throws -> VImage)] = [
            ("!0/default", { try $0.flippedHorizontally() }),
            ("90/default", { try $0.rotated(quarterTurns: 1) }),
            ("!270/default", { try $0.flippedHorizontally().rotated(quarterTurns: 3) }),
            ("180/gray", { try $0.rotated(quarterTurns: 2).grayscale() }),
        ]
        for (suffix, transform) in cases {
            let (_, served) = try image("200,100,600,400/300,/\(suffix).png")
            try expectClose(served, rect, size, suffix, transform: transform)
        }
    }

    /// A request that coincides with a stored tile comes from that tile alone, overlap cut away; in a
    /// lossless format of this lossless source it comes from the lossless copy instead (TileFormatTests),
    /// and is then libvips's scaling of the source, not the stored tile.
    @Test func tileAlignedRequestsAreTheStoredTileWithoutOverlap() throws {
        let manifest = try #require(server.service.library.record("scene")?.manifest)
        let pyramid = manifest.pyramid
        let level = pyramid.maxLevel - 1  // scale factor 2: IIIF tile 254 px covers 508 source px
        let tilePath = server.service.store.tilePath(id: "scene", version: manifest.version, level: level, column: 1, row: 1)
        let stored = try VImage.open(tilePath).crop(x: 1, y: 1, width: 254, height: 246)  // level is 750x500
        let (_, served) = try image("508,508,508,492/254,/0/default.jpg")
        try #require(served.width == 254 && served.height == 246)
        // One more JPEG generation of exactly those pixels.
        #expect(served.pixels == (try Decoded(try stored.encoded(as: .jpeg, quality: 85)).pixels))
        let (_, lossless) = try image("508,508,508,492/254,/0/default.png")
        try expectClose(lossless, PixelRect(x: 508, y: 508, width: 508, height: 492), PixelSize(width: 254, height: 246),
                        "lossless tile")
    }

    /// Tile-aligned JPEG requests are written once as files, then served as those bytes.
    @Test func tileAlignedJPEGsAreWrittenOnceThenServedFromTheFile() throws {
        let path = "/iiif/3/scene/1016,0,484,508/242,/0/default.jpg"  // level 10's last column, first row
        let first = try server.get(path)
        let second = try server.get(path)
        let colour = try server.get("/iiif/3/scene/1016,0,484,508/242,254/0/color.jpg")
        #expect(first.status == 200 && second.status == 200)
        #expect(first.header("server-timing")?.contains("tile;desc=written") == true)
        // From the file, or from its bytes while the file is still being written behind the first reply.
        for reply in [second, colour] {
            let timing = reply.header("server-timing") ?? ""
            #expect(timing.hasPrefix("tile;desc=stored,") || timing.hasPrefix("tile;desc=storing,") || timing == "tile;desc=stored", "\(timing)")
        }
        #expect(first.body == second.body && second.body == colour.body)
        #expect(second.header("etag") == first.header("etag"))
        #expect(second.header("link")?.contains("rel=\"canonical\"") == true)
        let decoded = try Decoded(second.body)
        #expect(decoded.width == 242 && decoded.height == 254)
        try expectClose(decoded, PixelRect(x: 1016, y: 0, width: 484, height: 508), PixelSize(width: 242, height: 254), path)
        // Not a tile: one pixel off, another size, rotated or another format are rendered.
        for other in ["1017,0,484,508/242,/0/default.jpg", "1016,0,484,508/241,/0/default.jpg",
                      "1016,0,484,508/242,/90/default.jpg", "1016,0,484,508/242,/0/default.png"] {
            let reply = try server.get("/iiif/3/scene/" + other)
            #expect(reply.header("server-timing")?.contains("tile;") == false, "\(other)")
        }
    }

    // MARK: - info.json and the base URI

    @Test func infoJSONDescribesThePyramid() throws {
        let reply = try server.get("/iiif/3/scene/info.json")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "application/json")
        let info = try #require(reply.json)
        #expect(info["@context"] as? String == "http://iiif.io/api/image/3/context.json")
        #expect(info["id"] as? String == "http://127.0.0.1/iiif/3/scene")
        #expect(info["type"] as? String == "ImageService3")
        #expect(info["protocol"] as? String == "http://iiif.io/api/image")
        #expect(info["profile"] as? String == "level2")
        #expect(info["width"] as? Int == 1500 && info["height"] as? Int == 1000)
        let tiles = try #require((info["tiles"] as? [[String: Any]])?.first)
        #expect(tiles["width"] as? Int == 254)
        #expect(tiles["scaleFactors"] as? [Int] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048])
        let sizes = try #require(info["sizes"] as? [[String: Int]])
        #expect(sizes.last == ["width": 1500, "height": 1000])
        #expect(sizes.contains(["width": 750, "height": 500]))
        #expect(info["extraFormats"] as? [String] == ["webp", "gif", "tif", "jp2"] + (EncodedFormat.avif.isAvailable ? ["avif"] : []))
        #expect((info["extraFeatures"] as? [String])?.contains("sizeUpscaling") == true)
        #expect(reply.header("access-control-allow-origin") == "*")
        #expect(reply.header("link")?.contains("rel=\"profile\"") == true)
    }

    @Test func jsonLDWhenAsked() throws {
        let reply = try server.get("/iiif/3/scene/info.json", headers: ["Accept": "application/ld+json"])
        #expect(reply.header("content-type") == "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"")
    }

    @Test func idFollowsForwardedHeadersAndIgnoresHostileOnes() throws {
        let forwarded = try server.get("/iiif/3/scene/info.json",
                                       headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "tiles.example.org, proxy"])
        #expect(forwarded.json?["id"] as? String == "https://tiles.example.org/iiif/3/scene")
        let hostile = try server.get("/iiif/3/scene/info.json",
                                     headers: ["X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "evil\"/x"])
        #expect(hostile.json?["id"] as? String == "http://127.0.0.1/iiif/3/scene")
    }

    @Test func configuredPublicURLWins() throws {
        let service = IIIFService(publicURL: "https://example.org/tiles/")
        let request = HTTPServerRequest(method: "GET", rawPath: "/iiif/3/x", headers: ["host": "internal:8080"])
        #expect(service.baseURI(id: "a b", request: request) == "https://example.org/tiles/iiif/3/a%20b")
    }

    @Test func baseURIRedirectsToInfo() throws {
        for path in ["/iiif/3/scene", "/iiif/3/scene/"] {
            let reply = try server.get(path)
            #expect(reply.status == 303)
            #expect(reply.header("location") == "http://127.0.0.1/iiif/3/scene/info.json")
        }
        #expect(try server.get("/iiif/3/nothing").status == 404)
    }

    // MARK: - HTTP behaviour

    @Test func linkHeadersNameTheCanonicalURIAndProfile() throws {
        let (reply, _) = try image("0,0,1500,1000/pct:50/360/default.jpg")
        let link = try #require(reply.header("link"))
        #expect(link.contains("<http://127.0.0.1/iiif/3/scene/full/750,500/0/default.jpg>;rel=\"canonical\""))
        #expect(link.contains("<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""))
        #expect(reply.header("access-control-expose-headers")?.contains("Link") == true)
    }

    @Test func etagsRevalidateAndTheCacheShowsInServerTiming() throws {
        let path = "/iiif/3/scene/7,7,301,203/150,/0/default.webp"
        let first = try server.get(path)
        let second = try server.get(path)
        #expect(first.header("server-timing")?.contains("cache;desc=miss") == true)
        #expect(first.header("server-timing")?.contains("render;dur=") == true)
        #expect(second.header("server-timing")?.contains("cache;desc=hit") == true)
        #expect(first.body == second.body)
        let etag = try #require(first.header("etag"))
        let version = try #require(server.service.library.record("scene")?.version)
        // Of the canonical path the Link header names (the version's and the rendering's, not the URL's spelling).
        let link = try #require(first.header("link"))
        let canonical = try #require(link.split(separator: ">").first?.dropFirst("<http://127.0.0.1/iiif/3/scene/".count))
        #expect(etag == TileETag(version: version, .iiifImage(canonical: String(canonical))).text, "\(link)")
        let revalidated = try server.get(path, headers: ["If-None-Match": etag])
        #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        #expect(first.header("cache-control") == "public, max-age=86400")
        let versioned = try server.get(path + "?v=\(version)")
        #expect(versioned.header("cache-control") == HTTPCaching.immutable)
    }

    @Test func headAndOptions() throws {
        let connection = try RawHTTP(port: server.port)
        let head = try connection.send("HEAD", "/iiif/3/scene/full/100,/0/default.jpg")
        #expect(head.status == 200 && head.body.isEmpty && head.header("content-type") == "image/jpeg")
        let options = try connection.send("OPTIONS", "/iiif/3/scene/info.json")
        #expect(options.status == 204)
        #expect(options.header("access-control-allow-methods")?.contains("GET") == true)
        #expect(options.header("access-control-allow-origin") == "*")
    }

    @Test(arguments: [
        ("/iiif/3/nothing/info.json", 404), ("/iiif/3/nothing/full/max/0/default.jpg", 404),
        ("/iiif/3/scene%2F..%2Fscene/full/max/0/default.jpg", 404), ("/iiif/3/a/b/full/max/0/default.jpg", 404),
        ("/iiif/3/%5Bframe%5D/info.json", 404), ("/iiif/4/scene/info.json", 404),
        ("/iiif/3/scene/full/full/0/default.jpg", 400), ("/iiif/3/scene/full/max/0/default.xyz", 400),
        ("/iiif/3/scene/abcdef/max/0/default.jpg", 400), ("/iiif/3/scene/full/max/-1/default.jpg", 400),
        ("/iiif/3/scene/full/2000,/0/default.jpg", 400), ("/iiif/3/scene/full/max/0/grey.jpg", 400),
    ])
    func errorsAreJSONWithCORS(path: String, status: Int) throws {
        let reply = try server.get(path)
        #expect(reply.status == status, "\(path): \(reply.status)")
        #expect(reply.json?["message"] is String)
        #expect(reply.header("access-control-allow-origin") == "*")
    }
}

typealias HTTPServerRequest = HTTPServer.Request
