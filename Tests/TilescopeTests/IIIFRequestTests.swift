import ScrollGeometry
import Testing
@testable import Tilescope

/// IIIF parameter syntax and arithmetic, without a server: output sizes, canonical forms, errors.
@Suite struct IIIFRequestTests {
    static let maxArea = 4096 * 4096

    func resolve(_ path: String, width: Int = 1500, height: Int = 1000) throws -> IIIFRendering {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return try IIIFImageRequest.parse(region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3])
            .resolve(width: width, height: height, maxArea: Self.maxArea)
    }

    @Test(arguments: [
        // region, size -> region rect, output size, canonical
        ("full/max/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 1500, height: 1000),
         "full/max/0/default.jpg"),
        ("square/max/0/default.jpg", PixelRect(x: 250, y: 0, width: 1000, height: 1000), PixelSize(width: 1000, height: 1000),
         "250,0,1000,1000/max/0/default.jpg"),
        ("0,0,1500,1000/max/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000),
         PixelSize(width: 1500, height: 1000), "full/max/0/default.jpg"),
        ("1400,900,500,500/max/0/default.png", PixelRect(x: 1400, y: 900, width: 100, height: 100),
         PixelSize(width: 100, height: 100), "1400,900,100,100/max/0/default.png"),
        ("pct:10,20,50,50/max/0/gray.jpg", PixelRect(x: 150, y: 200, width: 750, height: 500),
         PixelSize(width: 750, height: 500), "150,200,750,500/max/0/gray.jpg"),
        ("pct:0,0,100,100/pct:50/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000),
         PixelSize(width: 750, height: 500), "full/750,500/0/default.jpg"),
        ("full/300,/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 300, height: 200),
         "full/300,200/0/default.jpg"),
        ("full/,250/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 375, height: 250),
         "full/375,250/0/default.jpg"),
        ("full/200,200/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 200, height: 200),
         "full/200,200/0/default.jpg"),
        ("full/!300,300/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 300, height: 200),
         "full/300,200/0/default.jpg"),
        ("full/!900,300/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 450, height: 300),
         "full/450,300/0/default.jpg"),
        ("full/^3000,/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 3000, height: 2000),
         "full/^3000,2000/0/default.jpg"),
        ("0,0,100,100/^pct:250/0/default.jpg", PixelRect(x: 0, y: 0, width: 100, height: 100),
         PixelSize(width: 250, height: 250), "0,0,100,100/^250,250/0/default.jpg"),
        ("full/^!3000,3000/0/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000),
         PixelSize(width: 3000, height: 2000), "full/^3000,2000/0/default.jpg"),
        ("full/^max/90/default.jpg", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 1500, height: 1000),
         "full/max/90/default.jpg"),
        ("full/max/!22.50/bitonal.webp", PixelRect(x: 0, y: 0, width: 1500, height: 1000),
         PixelSize(width: 1500, height: 1000), "full/max/!22.5/bitonal.webp"),
        ("full/max/360/color.tif", PixelRect(x: 0, y: 0, width: 1500, height: 1000), PixelSize(width: 1500, height: 1000),
         "full/max/0/color.tif"),
    ])
    func resolvesRegionAndSize(path: String, region: PixelRect, size: PixelSize, canonical: String) throws {
        let rendering = try resolve(path)
        #expect(rendering.region == region)
        #expect(rendering.size == size)
        #expect(rendering.canonical == canonical)
    }

    @Test func maxIsBoundByMaxArea() throws {
        let rendering = try resolve("full/max/0/default.jpg", width: 40000, height: 20000)
        #expect(rendering.size.width * rendering.size.height <= Self.maxArea)
        #expect(abs(Double(rendering.size.width) / Double(rendering.size.height) - 2) < 0.01)
        #expect(rendering.canonical == "full/max/0/default.jpg")
    }

    @Test(arguments: [
        "full/full/0/default.jpg",  // IIIF 2 syntax, gone in 3.0
        "full/2000,/0/default.jpg", "full/,1001/0/default.jpg", "full/pct:101/0/default.jpg", "full/1501,10/0/default.jpg",
        "full/!3000,3000/0/default.jpg",  // would upscale without ^ (the validator's size_noup wants 400)
        "full/^9000,9000/0/default.jpg",  // beyond maxArea
        "full/0,/0/default.jpg", "full/pct:0/0/default.jpg", "full/,/0/default.jpg", "full/-5,/0/default.jpg",
        "full/1e3,/0/default.jpg", "full/ 100,/0/default.jpg", "full/100,100,100/0/default.jpg", "full/!100,/0/default.jpg",
        "square/max/361/default.jpg", "square/max/-90/default.jpg", "square/max/1e2/default.jpg", "square/max/nan/default.jpg",
        "square/max/!/default.jpg", "square/max/90./default.jpg.",
        "1500,0,10,10/max/0/default.jpg", "0,1000,10,10/max/0/default.jpg", "0,0,0,10/max/0/default.jpg",
        "pct:100,0,10,10/max/0/default.jpg", "pct:0,0,0.01,0.01/max/0/default.jpg", "pct:a,0,1,1/max/0/default.jpg",
        "0,0,10/max/0/default.jpg", "abcdef/max/0/default.jpg", "-1,0,10,10/max/0/default.jpg",
        "9999999999,0,10,10/max/0/default.jpg",
        // Found by schemathesis: width x height overflowed Int and the trap killed the server.
        "pct:4.1,48,04,0.202193/^,627892787/!90/default.gif", "0,0,1500,1/^,999999999/0/default.jpg",
        "full/max/0/native.jpg", "full/max/0/grey.jpg", "full/max/0/default.bmp", "full/max/0/default", "full/max/0/.jpg",
    ])
    func malformedOrUnsatisfiableIs400(path: String) {
        #expect(throws: APIError.self) { _ = try resolve(path) }
        do { _ = try resolve(path) } catch let error as APIError { #expect(error.status == 400, "\(path)") } catch {
            Issue.record("\(path): \(error)")
        }
    }

    @Test func rotationQuarterTurns() throws {
        #expect(try IIIFRotation.parse("0").quarterTurns == 0)
        #expect(try IIIFRotation.parse("270").quarterTurns == 3)
        #expect(try IIIFRotation.parse("360").quarterTurns == 0)
        #expect(try IIIFRotation.parse("!180").mirror)
        #expect(try IIIFRotation.parse("45.5").quarterTurns == nil)
        #expect(try IIIFRotation.parse(".5").degrees == 0.5)
    }

    @Test func endpointShapes() throws {
        #expect(try Endpoint.parse(["iiif", "3", "abc"]) == .iiifBase(id: "abc"))
        #expect(try Endpoint.parse(["iiif", "3", "abc", ""]) == .iiifBase(id: "abc"))
        #expect(try Endpoint.parse(["iiif", "3", "abc", "info.json"]) == .iiifInfo(id: "abc"))
        #expect(try Endpoint.parse(["iiif", "3", "a/b", "full", "max", "0", "default.jpg"])
            == .iiifImage(id: "a/b", region: "full", size: "max", rotation: "0", qualityAndFormat: "default.jpg"))
        for bad in [["iiif"], ["iiif", "4", "abc", "info.json"], ["iiif", "3", "a", "b", "full", "max", "0", "default.jpg"],
                    ["iiif", "3", "abc", "full", "max"]] {
            #expect(throws: APIError.self) { _ = try Endpoint.parse(bad) }
        }
    }

    @Test func cacheStaysWithinItsBoundAndDropsTheLeastRecentlyUsed() {
        let cache = DerivativeCache(capacityBytes: 8000)
        let item = { (n: Int) in DerivativeCache.Item(body: [UInt8](repeating: 1, count: n), contentType: "image/jpeg") }
        for i in 0..<10 { cache.put("k\(i)", item(1000)) }
        #expect(cache.byteCount <= 8000)
        #expect(cache.get("k0") == nil && cache.get("k1") == nil)
        #expect(cache.get("k2") != nil)  // now the most recent
        cache.put("k10", item(1000))
        #expect(cache.get("k2") != nil && cache.get("k3") == nil)
        cache.put("big", item(1001))  // more than an eighth of the cache: not kept
        #expect(cache.get("big") == nil)
        cache.put("k2", item(500))  // replacing an entry accounts for the old size
        #expect(cache.byteCount == 7500)
        #expect(DerivativeCache(capacityBytes: 0).get("x") == nil)
    }
}
