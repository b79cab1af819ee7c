import Foundation
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Images longer than a format can store on a side (issue 37): a 100000 x 10 image is one megapixel,
/// well within `maxArea`, but JPEG stores at most 65500 pixels a side and WebP 16383. info.json
/// declares the limit (`maxWidth`, `maxHeight`), `max` stays within it, and every URL a manifest
/// publishes answers with an image of the size it declares. Over real HTTP.
@Suite struct IIIFLongImageTests {
    static let shared: TestServer = {
        let server = try! TestServer(label: "iiif-long") { folder in
            try TestImages.writePNG(width: 100_000, height: 10, to: folder + "/long.png", seed: 1)
            try TestImages.writePNG(width: 10, height: 100_000, to: folder + "/tall.png", seed: 2)
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var server: TestServer { Self.shared }

    /// The image of a 200 answer, decoded; a failed expectation (and nil) otherwise.
    func image(_ path: String) throws -> VImage? {
        let reply = try server.get(path)
        #expect(reply.status == 200, "\(path): \(reply.status) \(reply.text.prefix(300))")
        guard reply.status == 200 else { return nil }
        return try VImage.decoding(reply.body)
    }

    func json(_ path: String) throws -> [String: Any] {
        let reply = try server.get(path)
        try #require(reply.status == 200, "\(path): \(reply.status) \(reply.text.prefix(300))")
        return try #require(reply.json)
    }

    /// The long side becomes 65500 (JPEG's limit), the other is derived from the image's aspect ratio:
    /// 10 x 65500 / 100000 = 6.55, rounded to 7.
    static let cases: [(id: String, jpeg: (Int, Int), webp: (Int, Int))] = [
        ("long", (65500, 7), (16383, 2)),
        ("tall", (7, 65500), (2, 16383)),
    ]

    @Test(arguments: cases.indices)
    func infoJSONDeclaresTheLimitsThatMaxHonours(_ index: Int) throws {
        let (id, jpeg, _) = Self.cases[index]
        let info = try json("/iiif/3/\(id)/info.json")
        #expect(info["maxWidth"] as? Int == 65500)
        #expect(info["maxHeight"] as? Int == 65500)
        let maxArea = try #require(info["maxArea"] as? Int)
        // Every listed size answers in every preferred format: no side past WebP's 16383.
        let sizes = try #require(info["sizes"] as? [[String: Int]])
        #expect(!sizes.isEmpty)
        for size in sizes {
            let (w, h) = (size["width"]!, size["height"]!)
            #expect(max(w, h) <= 16383 && w * h <= maxArea, "size \(w)x\(h)")
        }
        let largest = try #require(sizes.max { $0["width"]! * $0["height"]! < $1["width"]! * $1["height"]! })
        #expect(try image("/iiif/3/\(id)/full/\(largest["width"]!),\(largest["height"]!)/0/default.webp") != nil)

        let reply = try server.get("/iiif/3/\(id)/full/max/0/default.jpg")
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        #expect(reply.header("link")?.contains("/iiif/3/\(id)/full/max/0/default.jpg>;rel=\"canonical\"") == true)
        let max = try VImage.decoding(reply.body)
        #expect(max.width == jpeg.0 && max.height == jpeg.1)
        #expect(max.width <= 65500 && max.height <= 65500)
        // `max` is the size `w,` (or `,h`) names along the long side.
        let named = try image(id == "long" ? "/iiif/3/long/full/65500,/0/default.jpg" : "/iiif/3/tall/full/,65500/0/default.jpg")
        #expect(named?.width == jpeg.0 && named?.height == jpeg.1)
    }

    /// info.json is one per image: it declares JPEG's limit, and `max` in a format that stores less
    /// (WebP, 16383 a side) is scaled down further to what that format stores.
    @Test(arguments: cases.indices)
    func maxInAnotherFormatStaysWithinItsEncoder(_ index: Int) throws {
        let (id, jpeg, webp) = Self.cases[index]
        let small = try image("/iiif/3/\(id)/full/max/0/default.webp")
        #expect(small?.width == webp.0 && small?.height == webp.1)
        #expect(try image("/iiif/2/\(id)/full/max/0/default.webp")?.width == webp.0)
        // PNG has no side limit of its own: `max` as PNG is within the declared limit all the same.
        let png = try image("/iiif/3/\(id)/full/max/0/default.png")
        #expect(png?.width == jpeg.0 && png?.height == jpeg.1)
        // Quarter turns keep the long side: still within the limit.
        let turned = try image("/iiif/3/\(id)/full/max/90/default.jpg")
        #expect(turned?.width == jpeg.1 && turned?.height == jpeg.0)
        // An explicit size past the format's limit is still a 400 that says so.
        let refused = try server.get("/iiif/3/\(id)/full/\(id == "long" ? "16384," : ",16384")/0/default.webp")
        #expect(refused.status == 400)
        #expect((refused.json?["message"] as? String)?.contains("at most 16383 pixels on a side") == true)
    }

    @Test(arguments: cases.indices)
    func version2DeclaresTheLimitsInItsProfile(_ index: Int) throws {
        let (id, jpeg, _) = Self.cases[index]
        let info = try json("/iiif/2/\(id)/info.json")
        let profile = try #require(info["profile"] as? [Any])
        let offered = try #require(profile.last as? [String: Any])
        #expect(offered["maxWidth"] as? Int == 65500)
        #expect(offered["maxHeight"] as? Int == 65500)
        #expect(offered["maxArea"] as? Int != nil)
        let max = try image("/iiif/2/\(id)/full/max/0/default.jpg")
        #expect(max?.width == jpeg.0 && max?.height == jpeg.1)
        // 2.1's `full` is never scaled: as JPEG it cannot be stored, and the 400 points to `max`.
        let full = try server.get("/iiif/2/\(id)/full/full/0/default.jpg")
        #expect(full.status == 400)
        let message = try #require(full.json?["message"] as? String)
        #expect(message.contains("at most 65500 pixels on a side") && message.contains("ask for max"), "\(message)")
        // As PNG, which stores any side, it is the whole image.
        let png = try image("/iiif/2/\(id)/full/full/0/default.png")
        #expect(png?.width == (id == "long" ? 100_000 : 10) && png?.height == (id == "long" ? 10 : 100_000))
    }

    /// The Presentation manifest paints `full/max/0/default.jpg` with its size: that URL answers
    /// with an image of exactly that size.
    @Test(arguments: cases.indices)
    func theManifestsPaintedImageAnswersAtItsDeclaredSize(_ index: Int) throws {
        let (id, jpeg, _) = Self.cases[index]
        let manifest = try json("/iiif/presentation/\(id)/manifest.json")
        let canvas = try #require((manifest["items"] as? [[String: Any]])?.first)
        let page = try #require((canvas["items"] as? [[String: Any]])?.first)
        let body = try #require((page["items"] as? [[String: Any]])?.first?["body"] as? [String: Any])
        let url = try #require(body["id"] as? String)
        #expect(url.hasSuffix("/iiif/3/\(id)/full/max/0/default.jpg"))
        let path = try #require(URL(string: url)?.path)
        #expect(body["width"] as? Int == jpeg.0 && body["height"] as? Int == jpeg.1)
        let painted = try image(path)
        #expect(painted?.width == body["width"] as? Int && painted?.height == body["height"] as? Int)
        // The thumbnail too.
        let thumbnail = try #require((manifest["thumbnail"] as? [[String: Any]])?.first)
        let thumbnailID = try #require(thumbnail["id"] as? String)
        let thumbnailURL = try #require(URLComponents(string: thumbnailID))
        let preview = try image(thumbnailURL.path + "?" + (thumbnailURL.query ?? ""))
        #expect(preview?.width == thumbnail["width"] as? Int && preview?.height == thumbnail["height"] as? Int)
    }
}
