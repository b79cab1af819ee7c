import SeededRandom
import Foundation
import Testing
import ScrollGeometry
@testable import Tilescope

/// The viewport answer: exact JSON for a worked example, and agreement with JSONEncoder everywhere.
@Suite struct ViewportResponseTests {
    static let workedExample = ["width": "300", "height": "150", "scale": "2", "zoomScale": "1",
                                "offsetX": "200", "offsetY": "100"]
    /// The worked example's answer up to its tile list, the same in every listing.
    static let workedExampleHead = #"""
        {"image":{"id":"tiny","width":600,"height":300,"tileSize":254,"overlap":1,"maxLevel":10},\#
        "zoomScale":1,"minimumZoomScale":0.5,"maximumZoomScale":1,\#
        "contentSize":{"width":600,"height":300},"contentOffset":{"x":200,"y":100},\#
        "visibleRect":{"x":200,"y":100,"width":300,"height":150},\#
        "resolution":"high","threshold":0.5,"level":10,\#
        "preview":{"url":"/images/tiny/preview.jpeg?v=3","width":600,"height":300},
        """#

    @Test func workedExampleIsExactlyTheDocumentedJSON() throws {
        let query = try ViewportQuery.parse(query: Self.workedExample)
        #expect(query.listing == .grid)
        let pyramid = Pyramid(width: 600, height: 300, tileSize: 254, overlap: 1)
        let response = ViewportResponse(imageID: "tiny", viewport: query.viewport(for: pyramid),
                                        urls: PyramidURLs(imageID: "tiny", version: 3), listing: query.listing)
        let expected = Self.workedExampleHead + #"""
        "tileURL":"/dzi/tiny_files/{level}/{col}_{row}.jpeg?v=3",\#
        "tiles":[[10,1,0],[10,0,0]],\#
        "frames":[{"level":10,"columns":[{"column":0,"x":0,"width":255},{"column":1,"x":253,"width":256}],\#
        "rows":[{"row":0,"y":0,"height":255}]}]}
        """#
        #expect(String(decoding: response.json, as: UTF8.self) == expected)
    }

    /// `tileFrames=1`: the answer as it was before the `frames` grid, byte for byte.
    @Test func workedExampleWithTileFramesIsTheFormerAnswer() throws {
        let query = try ViewportQuery.parse(query: Self.workedExample.merging(["tileFrames": "1"]) { $1 })
        #expect(query.listing == .objects)
        let pyramid = Pyramid(width: 600, height: 300, tileSize: 254, overlap: 1)
        let response = ViewportResponse(imageID: "tiny", viewport: query.viewport(for: pyramid),
                                        urls: PyramidURLs(imageID: "tiny", version: 3), listing: query.listing)
        let expected = Self.workedExampleHead + #"""
        "tileURL":"/dzi/tiny_files/{level}/{col}_{row}.jpeg?v=3",\#
        "tiles":[{"level":10,"column":1,"row":0,"frame":{"x":253,"y":0,"width":256,"height":255}},\#
        {"level":10,"column":0,"row":0,"frame":{"x":0,"y":0,"width":255,"height":255}}]}
        """#
        #expect(String(decoding: response.json, as: UTF8.self) == expected)
    }

    /// `tileURLs=1`: the answer as it was before the `tileURL` template, byte for byte.
    @Test func workedExampleWithTileURLsIsTheFormerAnswer() throws {
        // With or without tileFrames: URLs come with frames.
        for extra in [["tileURLs": "1"], ["tileURLs": "1", "tileFrames": "1"], ["tileURLs": "1", "tileFrames": "0"]] {
            let query = try ViewportQuery.parse(query: Self.workedExample.merging(extra) { $1 })
            #expect(query.tileURLs && query.listing == .objectsWithURLs)
            let pyramid = Pyramid(width: 600, height: 300, tileSize: 254, overlap: 1)
            let response = ViewportResponse(imageID: "tiny", viewport: query.viewport(for: pyramid),
                                            urls: PyramidURLs(imageID: "tiny", version: 3), listing: query.listing)
            let expected = Self.workedExampleHead + #"""
            "tiles":[{"level":10,"column":1,"row":0,"url":"/dzi/tiny_files/10/1_0.jpeg?v=3",\#
            "frame":{"x":253,"y":0,"width":256,"height":255}},\#
            {"level":10,"column":0,"row":0,"url":"/dzi/tiny_files/10/0_0.jpeg?v=3",\#
            "frame":{"x":0,"y":0,"width":255,"height":255}}]}
            """#
            #expect(String(decoding: response.json, as: UTF8.self) == expected)
        }
    }

    @Test func lowResolutionHasANullLevelAndNoTiles() throws {
        let pyramid = Pyramid(width: 4096, height: 2048)
        let viewport = Viewport(pyramid: pyramid, scrollView: ScrollView(boundsSize: Size(width: 1024, height: 768)))
        let response = ViewportResponse(imageID: "a", viewport: viewport, urls: PyramidURLs(imageID: "a", version: "7"))
        let object = try #require(JSONSerialization.jsonObject(with: Data(response.json)) as? [String: Any])
        #expect(object["resolution"] as? String == "low")
        #expect(object["level"] is NSNull)
        #expect((object["tiles"] as? [Any])?.isEmpty == true)
        #expect((object["frames"] as? [Any])?.isEmpty == true)
        #expect(object["prefetch"] == nil)
        #expect(object["threshold"] as? Double == 0.25)
        let preview = try #require(object["preview"] as? [String: Any])
        #expect(preview["url"] as? String == "/images/a/preview.jpeg?v=7")
        #expect(preview["width"] as? Int == 1024 && preview["height"] as? Int == 512)
        // JSONEncoder writes the null too.
        let encoded = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(response)) as? [String: Any])
        #expect(encoded["level"] is NSNull)
    }

    @Test func prefetchAppearsOnlyWhenAsked() throws {
        let pyramid = Pyramid(width: 4096, height: 2048)
        let query = try ViewportQuery.parse(query: ["width": "1024", "height": "768", "zoomScale": "0.5", "prefetch": "1"])
        let response = ViewportResponse(imageID: "a", viewport: query.viewport(for: pyramid), urls: PyramidURLs(imageID: "a", version: 1))
        let object = try #require(JSONSerialization.jsonObject(with: Data(response.json)) as? [String: Any])
        let prefetch = try #require(object["prefetch"] as? [[Int]])
        #expect(!prefetch.isEmpty)
        #expect(prefetch.allSatisfy { $0.count == 3 })
        #expect(object["tileURL"] as? String == "/dzi/a_files/{level}/{col}_{row}.jpeg?v=1")
        let withURLs = ViewportResponse(imageID: "a", viewport: query.viewport(for: pyramid),
                                        urls: PyramidURLs(imageID: "a", version: 1), listing: .objectsWithURLs)
        let listed = try #require(withURLs.prefetch)
        #expect(listed.count == prefetch.count)
        #expect(listed.allSatisfy { $0.url?.hasPrefix("/dzi/a_files/1") == true })
    }

    /// The template, filled in, is each tile's URL of the `tileURLs` answer, and the two answers differ in
    /// nothing else: the same tiles, in the same order, with the same frames.
    @Test func theTemplateSpellsEveryTileURL() throws {
        var compared = 0
        for seed in 0..<100 {
            var rng = SeededGenerator(seed: 0x7E_3B1A7E &+ UInt64(seed))
            let pyramid = Pyramid(width: rng.logUniformInt(1...60000), height: rng.logUniformInt(1...60000))
            let query = try ViewportQuery.parse(query: [
                "width": String(rng.logUniform(1...2000)), "height": String(rng.logUniform(1...2000)),
                "scale": String(Double.random(in: 1...4, using: &rng)), "zoomScale": String(rng.logUniform(1e-3...4)),
                "offsetX": String(Double.random(in: -1000...60000, using: &rng)),
                "offsetY": String(Double.random(in: -1000...60000, using: &rng)), "prefetch": "1"])
            let id = "im g/\(seed)"
            let urls = PyramidURLs(imageID: id, version: "\(seed) x")
            let viewport = query.viewport(for: pyramid)
            let short = ViewportResponse(imageID: id, viewport: viewport, urls: urls)
            let long = ViewportResponse(imageID: id, viewport: viewport, urls: urls, listing: .objectsWithURLs)
            let template = try #require(short.tileURL)
            #expect(template == urls.tiles && long.tileURL == nil)
            let shortTiles = short.tiles + (short.prefetch ?? []), longTiles = long.tiles + (long.prefetch ?? [])
            #expect(shortTiles.count == longTiles.count)
            for (a, b) in zip(shortTiles, longTiles) {
                #expect(a.level == b.level && a.column == b.column && a.row == b.row && a.frame == b.frame && a.url == nil)
                let filled = template.replacingOccurrences(of: "{level}", with: "\(a.level)")
                    .replacingOccurrences(of: "{col}", with: "\(a.column)").replacingOccurrences(of: "{row}", with: "\(a.row)")
                #expect(b.url == filled, "seed \(seed)")
                compared += 1
            }
        }
        #expect(compared > 500)
    }

    /// The grid listing, looked up, gives every tile the frame the object listing gives it, bit for bit, in the
    /// same order; and its columns and rows are contiguous and ascending, each listed once.
    @Test func gridFramesAreEachTilesFrame() throws {
        var compared = 0
        for seed in 0..<300 {
            var rng = SeededGenerator(seed: 0x6121D &+ UInt64(seed))
            let pyramid = Pyramid(width: rng.logUniformInt(1...60000), height: rng.logUniformInt(1...60000),
                                  tileSize: [254, 256, 510][seed % 3], overlap: [1, 0, 2][seed % 3])
            var fields = ["width": String(rng.logUniform(1...2000)), "height": String(rng.logUniform(1...2000)),
                          "scale": String(Double.random(in: 1...4, using: &rng)), "zoomScale": String(rng.logUniform(1e-3...4)),
                          "offsetX": String(Double.random(in: -1000...60000, using: &rng)),
                          "offsetY": String(Double.random(in: -1000...60000, using: &rng))]
            if seed % 2 == 0 { fields["prefetch"] = "1" }
            let viewport = try ViewportQuery.parse(query: fields).viewport(for: pyramid)
            let urls = PyramidURLs(imageID: "g", version: seed)
            let grid = try #require(JSONSerialization.jsonObject(with: Data(
                ViewportResponse(imageID: "g", viewport: viewport, urls: urls).json)) as? [String: Any])
            let objects = try #require(JSONSerialization.jsonObject(with: Data(
                ViewportResponse(imageID: "g", viewport: viewport, urls: urls, listing: .objects).json)) as? [String: Any])
            var across: [Int: [Int: (x: Double, width: Double)]] = [:], down: [Int: [Int: (y: Double, height: Double)]] = [:]
            for level in try #require(grid["frames"] as? [[String: Any]]) {
                let l = try #require(level["level"] as? Int)
                #expect(across[l] == nil, "seed \(seed): level \(l) listed twice")
                let columns = try #require(level["columns"] as? [[String: Any]]), rows = try #require(level["rows"] as? [[String: Any]])
                let c = columns.compactMap { $0["column"] as? Int }, r = rows.compactMap { $0["row"] as? Int }
                #expect(!c.isEmpty && c == Array(c[0]..<(c[0] + c.count)) && !r.isEmpty && r == Array(r[0]..<(r[0] + r.count)),
                        "seed \(seed): not contiguous")
                across[l] = Dictionary(uniqueKeysWithValues: columns.map { ($0["column"] as! Int, ($0["x"] as! Double, $0["width"] as! Double)) })
                down[l] = Dictionary(uniqueKeysWithValues: rows.map { ($0["row"] as! Int, ($0["y"] as! Double, $0["height"] as! Double)) })
            }
            for key in ["tiles", "prefetch"] {
                let listed = grid[key] as? [[Int]] ?? [], full = objects[key] as? [[String: Any]] ?? []
                #expect(listed.count == full.count && (grid[key] == nil) == (objects[key] == nil), "seed \(seed) \(key)")
                for (tile, object) in zip(listed, full) {
                    #expect(tile == [object["level"] as! Int, object["column"] as! Int, object["row"] as! Int])
                    let frame = try #require(object["frame"] as? [String: Double])
                    let column = try #require(across[tile[0]]?[tile[1]]), row = try #require(down[tile[0]]?[tile[2]])
                    #expect(column.x.bitPattern == frame["x"]!.bitPattern && column.width.bitPattern == frame["width"]!.bitPattern
                            && row.y.bitPattern == frame["y"]!.bitPattern && row.height.bitPattern == frame["height"]!.bitPattern,
                            "seed \(seed): tile \(tile)")
                    compared += 1
                }
            }
        }
        #expect(compared > 700)
    }

    @Test func handWrittenJSONMatchesJSONEncoderOnRandomViewports() throws {
        for seed in 0..<150 {
            var rng = SeededGenerator(seed: UInt64(seed))
            let pyramid = Pyramid(width: Int.random(in: 1...40000, using: &rng), height: Int.random(in: 1...40000, using: &rng))
            var fields = ["width": String(Double.random(in: 1...600, using: &rng)),
                          "height": String(Double.random(in: 1...600, using: &rng)),
                          "scale": String(Double.random(in: 1...4, using: &rng)),
                          "zoomScale": String(Double.random(in: 0.0001...3, using: &rng)),
                          "offsetX": String(Double.random(in: -1000...50000, using: &rng)),
                          "offsetY": String(Double.random(in: -1000...50000, using: &rng))]
            if seed % 3 == 0 { fields["prefetch"] = "true" }
            if seed % 5 == 0 { fields["tap"] = "\(Double.random(in: 0...40000, using: &rng)),\(Double.random(in: 0...40000, using: &rng))" }
            let query = try ViewportQuery.parse(query: fields)
            // Plain ids (copied whole) and ids with every kind of byte JSON escapes or passes through.
            let id = ["img-\(seed)", "img \"\(seed)\"", "img\\\(seed)", "img\n\(seed)\u{1F}", "img-\(seed) \"q\" \\ /\t\u{1} ü 🐯"][seed % 5]
            for listing in [ViewportResponse.TileListing.grid, .objects, .objectsWithURLs] {
                let response = ViewportResponse(imageID: id, viewport: query.viewport(for: pyramid),
                                                urls: PyramidURLs(imageID: id, version: seed), listing: listing)
                let mine = try JSONSerialization.jsonObject(with: Data(response.json)) as? NSDictionary
                let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(response)) as? NSDictionary
                #expect(mine != nil && mine == theirs, "seed \(seed), \(listing)")
                #expect((mine?["tileURL"] != nil) == (listing != .objectsWithURLs))
                #expect((mine?["frames"] != nil) == (listing == .grid))
            }
        }
    }

    @Test func numbersPrintShortAndExact() {
        #expect(ViewportJSON.number(2048) == "2048")
        #expect(ViewportJSON.number(-0.0) == "0")
        #expect(ViewportJSON.number(0.1) == "0.1")
        #expect(ViewportJSON.number(1.0 / 3) == "0.3333333333333333")
        #expect(ViewportJSON.number(1e-5) == "1e-05")
        #expect(ViewportJSON.number(1e300) == "1e+300")
        #expect(ViewportJSON.number(9_007_199_254_740_992) == "9007199254740992.0")
        #expect(ViewportJSON.number(.nan) == "null")
        for value in [1e-5, 1e300, 9_007_199_254_740_992, 0.1, 123.456e7] {
            #expect(Double(ViewportJSON.number(value)) == value)
        }
    }

    /// The writer prints through `Double.write(to:)`; the documented form is `description`'s.
    @Test func fractionsPrintAsDescriptionDoes() {
        var random = SeededGenerator(seed: 2026)
        var values = [0.1, 1e-5, 1e-7, 5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308,
                      1.7976931348623157e308, 9_007_199_254_740_993.5, 1e16 + 0.5, 123.456, -0.000123, 1e21, 1e22]
        for _ in 0..<50_000 {
            values.append(Double(bitPattern: UInt64.random(in: 0...0x7FEF_FFFF_FFFF_FFFF, using: &random))
                * (random.chance(0.5) ? 1 : -1))
            values.append(Double(Int.random(in: 0..<100_000, using: &random)) * random.logUniform(1e-4...4))
        }
        var mismatches: [Double] = []
        for value in values where value != value.rounded() || abs(value) >= 9_007_199_254_740_992 {
            if ViewportJSON.number(value) != value.description { mismatches.append(value) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func integersPrintAsSwiftPrintsThem() {
        var values = [0, 1, 9, 10, 11, 99, 100, 101, 999_999, 1_000_000, Int.max, Int.min, -1, -10, -1234567]
        values += (0..<19).flatMap { power -> [Int] in
            let p = (0..<power).reduce(1) { a, _ in a * 10 }
            return [p - 1, p, p + 1, -p]
        }
        for value in values {
            var writer = ViewportJSON(capacity: 8)  // 64 bytes: five of the longest numbers make it grow
            for _ in 0..<5 { writer.appendInt(value) }
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(repeating: "\(value)", count: 5))
        }
    }

    @Test func idsAreEscapedInJSONAndEncodedInURLs() throws {
        let id = "a \"b\"/ü\n"
        let urls = PyramidURLs(imageID: id, version: "1 2")
        #expect(urls.preview == "/images/a%20%22b%22%2F%C3%BC%0A/preview.jpeg?v=1%202")
        #expect(urls.dzi == "/dzi/a%20%22b%22%2F%C3%BC%0A.dzi?v=1%202")
        #expect(urls.tiles == "/dzi/a%20%22b%22%2F%C3%BC%0A_files/{level}/{col}_{row}.jpeg?v=1%202")
        #expect(urls.tile(TileAddress(level: 3, column: 4, row: 5)) == "/dzi/a%20%22b%22%2F%C3%BC%0A_files/3/4_5.jpeg?v=1%202")
        let viewport = Viewport(pyramid: Pyramid(width: 10, height: 10), scrollView: ScrollView(boundsSize: Size(width: 10, height: 10)))
        let response = ViewportResponse(imageID: id, viewport: viewport, urls: urls)
        let object = try #require(JSONSerialization.jsonObject(with: Data(response.json)) as? [String: Any])
        #expect((object["image"] as? [String: Any])?["id"] as? String == id)
    }

    @Test func plainIDsAreUnchanged() {
        let urls = PyramidURLs(imageID: "Aurora_2024-01.v2~x", version: 12)
        #expect(urls.dzi == "/dzi/Aurora_2024-01.v2~x.dzi?v=12")
        #expect(urls.tile(TileAddress(level: 0, column: 0, row: 0)) == "/dzi/Aurora_2024-01.v2~x_files/0/0_0.jpeg?v=12")
    }
}
