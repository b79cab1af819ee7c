import ScrollGeometry
import Testing
@testable import Tilescope

/// Sizes and regions far beyond any image: each is a 400 with a reason, never an overflow trap.
@Suite struct IIIFLimitTests {
    static let maxArea = 4096 * 4096

    func resolve(_ region: String, _ size: String, width: Int, height: Int) throws -> IIIFRendering {
        try IIIFImageRequest.parse(region: region, size: size, rotation: "0", qualityAndFormat: "default.jpg")
            .resolve(width: width, height: height, maxArea: Self.maxArea)
    }

    /// The requests that used to kill the process (issue 12, defect 1).
    @Test(arguments: [
        ("full", "^pct:999999999", 400, 300),
        ("full", "^pct:999999999", 100_000, 100_000),
        ("0,0,1,1", "^999999999,", 1000, 1000),
        ("0,0,1,1000", "^999999999,", 1000, 1000),
        ("0,0,1000,1", "^,999999999", 1000, 1000),
        ("full", "^999999999,999999999", 50_000, 50_000),
        ("full", "^!999999999,999999999", 1, 60_000),
        ("pct:0,0,999999999,999999999", "^pct:999999999.999999999", 70_000, 70_000),
    ])
    func hugeSizesAreRefusedNotTrapped(region: String, size: String, width: Int, height: Int) {
        #expect(throws: APIError.self) { try resolve(region, size, width: width, height: height) }
    }

    /// A side past what the format can store is a 400 before rendering, not an encoder failure (the
    /// contract test found `square/^7434876,2/0/gray.webp` answered 500: WebP stores 14 bits a side).
    @Test func sidesPastTheFormatsLimitAreRefused() throws {
        func render(_ size: String, _ format: String, rotation: String = "0") throws -> IIIFRendering {
            try IIIFImageRequest.parse(region: "square", size: size, rotation: rotation, qualityAndFormat: "gray.\(format)")
                .resolve(width: 300, height: 200, maxArea: Self.maxArea)
        }
        #expect(throws: APIError.self) { try render("^7434876,2", "webp") }
        #expect(throws: APIError.self) { try render("^16384,2", "webp") }
        #expect(throws: APIError.self) { try render("^2,16384", "webp") }
        #expect(throws: APIError.self) { try render("^7434876,2", "jpg") }
        #expect(try render("^16383,2", "webp").size == PixelSize(width: 16383, height: 2))
        #expect(try render("^16384,2", "jpg").size == PixelSize(width: 16384, height: 2))
        #expect(try render("^16384,2", "png").size == PixelSize(width: 16384, height: 2))
        // Turned a quarter, the long side is the other one; turned freely, the bounding box counts.
        #expect(throws: APIError.self) { try render("^2,16384", "webp", rotation: "90") }
        #expect(try render("^16380,400", "webp").size == PixelSize(width: 16380, height: 400))
        #expect(throws: APIError.self) { try render("^16380,400", "webp", rotation: "1.4") }  // 16385 px wide turned
        #expect(try render("^16000,2", "webp", rotation: "180").size == PixelSize(width: 16000, height: 2))
    }

    /// `max` keeps within the format's longest side as well as `maxArea`, keeping the aspect ratio
    /// (issue 37: `max` of a 100000 x 10 image was refused as a JPEG 100000 pixels wide). The cases
    /// with a side limit are the IIIF reference implementation's, for maxWidth = maxHeight.
    @Test func maxFitsTheAreaAndTheLongestSide() throws {
        func fit(_ width: Int, _ height: Int, maxArea: Int = Self.maxArea, maxSide: Int?) -> PixelSize {
            IIIFSize.fit(PixelSize(width: width, height: height), maxArea: maxArea, maxSide: maxSide)
        }
        #expect(fit(100_000, 10, maxSide: 65500) == PixelSize(width: 65500, height: 7))
        #expect(fit(10, 100_000, maxSide: 65500) == PixelSize(width: 7, height: 65500))
        #expect(fit(100_000, 10, maxSide: 16383) == PixelSize(width: 16383, height: 2))
        #expect(fit(100_000, 10, maxSide: nil) == PixelSize(width: 100_000, height: 10))
        #expect(fit(200_000, 1, maxSide: 65500) == PixelSize(width: 65500, height: 1))
        #expect(fit(124, 124, maxArea: 1 << 30, maxSide: 123) == PixelSize(width: 123, height: 123))
        #expect(fit(6000, 4000, maxArea: 1 << 30, maxSide: 30) == PixelSize(width: 30, height: 20))
        #expect(fit(110, 110, maxArea: 10000, maxSide: 110) == PixelSize(width: 100, height: 100))
        #expect(fit(6000, 6000, maxArea: 900, maxSide: 1000) == PixelSize(width: 30, height: 30))
        #expect(fit(6000, 60, maxArea: 900, maxSide: 1000) == PixelSize(width: 300, height: 3))
        #expect(fit(6000, 10, maxArea: 900, maxSide: 1000) == PixelSize(width: 734, height: 1))
        #expect(fit(6000, 30, maxArea: 900_000, maxSide: 2000) == PixelSize(width: 2000, height: 10))

        func rendering(_ size: String, _ format: String, width: Int = 100_000, height: Int = 10) throws -> IIIFRendering {
            try IIIFImageRequest.parse(region: "full", size: size, rotation: "0", qualityAndFormat: "default.\(format)")
                .resolve(width: width, height: height, maxArea: Self.maxArea)
        }
        #expect(try rendering("max", "jpg").size == PixelSize(width: 65500, height: 7))
        #expect(try rendering("max", "jpg").canonical == "full/max/0/default.jpg")
        #expect(try rendering("65500,", "jpg").canonical == "full/max/0/default.jpg")
        #expect(try rendering("max", "webp").size == PixelSize(width: 16383, height: 2))
        #expect(try rendering("^max", "webp", width: 10, height: 100_000).size == PixelSize(width: 2, height: 16383))
        #expect(try rendering("max", "png").size == PixelSize(width: 65500, height: 7))
        let v2 = try IIIF2ImageRequest.parse(region: "full", size: "max", rotation: "0", qualityAndFormat: "default.jpg")
            .resolve(width: 100_000, height: 10, maxArea: Self.maxArea)
        #expect(v2.size == PixelSize(width: 65500, height: 7) && v2.canonical == "full/65500,/0/default.jpg")
        #expect(throws: APIError.self) {
            try IIIF2ImageRequest.parse(region: "full", size: "full", rotation: "0", qualityAndFormat: "default.jpg")
                .resolve(width: 100_000, height: 10, maxArea: Self.maxArea)
        }
    }

    /// Every combination of extreme numbers in every size form, over extreme image shapes: the answer is
    /// an output within maxArea or a thrown 400. A trap would end the test process.
    @Test func extremeNumbersResolveWithinTheLimitsOrThrow() {
        let numbers = ["1", "2", "255", "4096", "65535", "99999", "999999999", "000000001"]
        let decimals = ["0.000000001", "1", "50", "100", "101", "4096.5", "999999999", "999999999.999999999"]
        var sizes: [String] = ["max", "^max"]
        for n in numbers {
            sizes += ["\(n),", ",\(n)", "^\(n),", "^,\(n)"]
            for m in numbers { sizes += ["\(n),\(m)", "^\(n),\(m)", "!\(n),\(m)", "^!\(n),\(m)"] }
        }
        for d in decimals { sizes += ["pct:\(d)", "^pct:\(d)"] }
        let regions = ["full", "square", "0,0,1,1", "0,0,999999999,1", "0,0,1,999999999", "999999998,0,1,1",
                       "pct:0,0,0.000000001,100", "pct:99.999999999,0,999999999,999999999", "pct:0,0,100,100"]
        let shapes = [(1, 1), (1, 200_000), (200_000, 1), (92_000, 92_000), (200_000, 200_000)]
        var resolved = 0
        for (width, height) in shapes {
            for region in regions {
                for size in sizes {
                    guard let rendering = try? resolve(region, size, width: width, height: height) else { continue }
                    resolved += 1
                    #expect(rendering.size.width >= 1 && rendering.size.height >= 1)
                    #expect(rendering.size.width * rendering.size.height <= Self.maxArea, "\(region)/\(size) on \(width)x\(height)")
                    #expect(rendering.region.x + rendering.region.width <= width)
                    #expect(rendering.region.y + rendering.region.height <= height)
                }
            }
        }
        #expect(resolved > 100)  // the sweep reaches the success path too, not only errors
    }

    /// A free rotation draws the picture on its bounding box: that box, not the size asked for,
    /// is what must stay within maxArea (contract test, schemathesis: `^93050,31` turned 7 degrees
    /// rendered a 92360x11371 image). Quarter turns keep the area and are never refused for it.
    /// (PNG here: it has no side limit of its own, `sidesPastTheFormatsLimitAreRefused`.)
    @Test func freeRotationsStayWithinMaxArea() throws {
        func rendering(_ size: String, _ rotation: String, version2: Bool = false) throws -> IIIFRendering {
            version2
                ? try IIIF2ImageRequest.parse(region: "0,0,256,256", size: size, rotation: rotation, qualityAndFormat: "default.png")
                    .resolve(width: 1500, height: 1000, maxArea: Self.maxArea)
                : try IIIFImageRequest.parse(region: "0,0,256,256", size: size, rotation: rotation, qualityAndFormat: "default.png")
                    .resolve(width: 1500, height: 1000, maxArea: Self.maxArea)
        }
        #expect(throws: APIError.self) { try rendering("^93050,31", "7") }
        #expect(throws: APIError.self) { try rendering("93050,31", "7", version2: true) }
        #expect(throws: APIError.self) { try rendering("^4096,4096", "45") }
        #expect(try rendering("^93050,31", "90").size == PixelSize(width: 93050, height: 31))
        #expect(try rendering("^93050,31", "!180").size == PixelSize(width: 93050, height: 31))
        #expect(try rendering("^2048,2048", "45").size == PixelSize(width: 2048, height: 2048))
        #expect(try rendering("256,256", "33.5", version2: true).size == PixelSize(width: 256, height: 256))
    }
}
