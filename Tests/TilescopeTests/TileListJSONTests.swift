import SeededRandom
import Testing
import ScrollGeometry
@testable import Tilescope

/// The tile lists of the viewport answer, byte for byte, against the same text written out plainly, one
/// field of one tile at a time: the pre-formatted pieces `TileListJSON` copies must add up to exactly this,
/// with each tile's URL (`tileURLs`) and without it (the answer's `tileURL` template instead).
@Suite struct TileListJSONTests {
    static func plain(_ tiles: [ViewportResponse.TileJSON]) -> String {
        let items = tiles.map { t in
            "{\"level\":\(t.level),\"column\":\(t.column),\"row\":\(t.row),"
                + (t.url.map { "\"url\":\"\($0)\"," } ?? "")
                + "\"frame\":{\"x\":\(ViewportJSON.number(t.frame.x)),\"y\":\(ViewportJSON.number(t.frame.y)),"
                + "\"width\":\(ViewportJSON.number(t.frame.width)),\"height\":\(ViewportJSON.number(t.frame.height))}}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    @Test func tileListsAreByteForByteThePlainlyWrittenOnes() throws {
        var tiles = 0
        for seed in 0..<600 {
            var rng = SeededGenerator(seed: 0x71_1E5 &+ UInt64(seed))
            let pyramid = Pyramid(width: rng.logUniformInt(1...60000), height: rng.logUniformInt(1...60000),
                                  tileSize: [254, 256, 510, 100][seed % 4], overlap: seed % 3)
            var fields = ["width": String(rng.logUniform(1...2000)), "height": String(rng.logUniform(1...2000)),
                          "scale": ["1", "2", "3", String(Double.random(in: 1...4, using: &rng))][seed % 4],
                          "zoomScale": String(rng.logUniform(1e-4...4)),
                          "offsetX": String(Double.random(in: -1000...60000, using: &rng)),
                          "offsetY": String(Double.random(in: -1000...60000, using: &rng))]
            if seed % 2 == 0 { fields["prefetch"] = "1" }
            let query = try ViewportQuery.parse(query: fields)
            let id = "img \(seed) \"é\""  // escaped in URLs and in the id field alike
            let urls = PyramidURLs(imageID: id, version: seed % 5 == 0 ? "v/\(seed)" : String(seed))
            for tileURLs in [false, true] {
                let response = ViewportResponse(imageID: id, viewport: query.viewport(for: pyramid), urls: urls,
                                                listing: tileURLs ? .objectsWithURLs : .objects)
                #expect(response.tiles.allSatisfy { ($0.url != nil) == tileURLs })
                var tail = ",\"tiles\":" + Self.plain(response.tiles)
                if let prefetch = response.prefetch { tail += ",\"prefetch\":" + Self.plain(prefetch) }
                if !tileURLs { tail = ",\"tileURL\":\"\(urls.tiles)\"" + tail }
                let json = String(decoding: response.json, as: UTF8.self)
                #expect(json.hasSuffix(tail + "}"), "seed \(seed), tileURLs \(tileURLs): \(fields)")
                tiles += response.tiles.count + (response.prefetch?.count ?? 0)
            }
        }
        #expect(tiles > 4_000)  // most random zooms show the preview; enough of them show tiles
    }
}
