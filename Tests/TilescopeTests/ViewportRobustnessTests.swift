import SeededRandom
import Foundation
import Testing
import ScrollGeometry
@testable import Tilescope

/// No input crashes the parser or the geometry, and every accepted input yields finite, bounded JSON.
@Suite struct ViewportRobustnessTests {
    static let fields = ["width", "height", "scale", "zoomScale", "offsetX", "offsetY", "insets", "minZoomScale",
                         "maxZoomScale", "zoomRect", "tap", "factor", "prefetch"]

    /// Random junk in every field: either a checked request or an error naming one of the fields.
    @Test func randomQueryStringsParseOrNameAField() {
        var rng = SeededGenerator(seed: 42)
        let alphabet = Array("0123456789.,-+eE naifINFx ")
        for _ in 0..<20_000 {
            var query: [String: String] = [:]
            for field in Self.fields where Int.random(in: 0..<3, using: &rng) > 0 {
                let length = Int.random(in: 0...12, using: &rng)
                query[field] = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            }
            do {
                let parsed = try ViewportQuery.parse(query: query)
                let available = parsed.scrollView.availableSize
                #expect(available.width > 0 && available.height > 0)
            } catch {
                let root = error.field.split(separator: ".").first.map(String.init) ?? ""
                #expect(Self.fields.contains(root), "\(error) for \(query)")
                #expect(error.message.hasPrefix(error.field) || error.field == "minZoomScale"
                        || error.message.hasPrefix("insets") || error.message.hasPrefix("tap"), "\(error)")
            }
        }
    }

    @Test func randomJSONBodiesParseOrNameAField() {
        var rng = SeededGenerator(seed: 7)
        let values = ["1", "0", "-1", "1e308", "1e-320", "\"3\"", "\"x\"", "true", "null", "[1,2,3,4]", "[1,2]",
                      "{\"x\":1,\"y\":2}", "{\"top\":1}", "[[1]]", "{}", "\"1,2,3,4\"", "16384", "4.5", "1e999"]
        for _ in 0..<5_000 {
            let pairs = Self.fields.filter { _ in Bool.random(using: &rng) }
                .map { "\"\($0)\": \(values.randomElement(using: &rng)!)" }
            let body = "{" + pairs.joined(separator: ", ") + "}"
            do {
                _ = try ViewportQuery.parse(json: Array(body.utf8))
            } catch {
                let root = error.field.split(separator: ".").first.map(String.init) ?? ""
                #expect(Self.fields.contains(root) || root == "body", "\(error) for \(body)")
            }
        }
    }

    /// The largest and smallest accepted values still give finite numbers and a bounded tile list.
    @Test func extremeButValidRequestsGiveFiniteAnswers() throws {
        let pyramids = [Pyramid(width: 1, height: 1), Pyramid(width: 1, height: 100_000), Pyramid(width: 60_000, height: 40_000)]
        let queries: [[String: String]] = [
            ["width": "16384", "height": "16384", "scale": "1", "zoomScale": "1e300"],
            ["width": "0.001", "height": "16384", "scale": "4", "zoomScale": "1e-300", "offsetX": "-1e300"],
            ["width": "300", "height": "200", "scale": "4", "maxZoomScale": "1000000", "zoomScale": "1e308", "offsetX": "1e308", "offsetY": "1e308"],
            ["width": "300", "height": "200", "minZoomScale": "1e-300", "maxZoomScale": "1e-300", "tap": "1e308,-1e308", "factor": "1e308"],
            ["width": "300", "height": "200", "maxZoomScale": "1000000", "zoomRect": "1e308,1e308,1e308,1e-300", "prefetch": "1"],
            ["width": "300", "height": "200", "zoomRect": "-1e308,-1e308,5e-324,5e-324", "prefetch": "1"],
            ["width": "16384", "height": "9000", "scale": "4", "insets": "4000,8000,4999.999,8383.999", "prefetch": "1"],
        ]
        for pyramid in pyramids {
            for fields in queries {
                let query = try ViewportQuery.parse(query: fields)
                let viewport = query.viewport(for: pyramid)
                let response = ViewportResponse(imageID: "x", viewport: viewport, urls: PyramidURLs(imageID: "x", version: 1))
                let text = String(decoding: response.json, as: UTF8.self)
                #expect(!text.contains("null") || (viewport.level == nil && text.components(separatedBy: "null").count == 2),
                        "\(pyramid) \(fields)")
                #expect(try JSONSerialization.jsonObject(with: Data(response.json)) is [String: Any])
                let grid = viewport.level.map { pyramid.tileGrid(ofLevel: $0) }
                #expect(viewport.tiles.count <= (grid.map { $0.columns * $0.rows } ?? 0))
            }
        }
    }
}
