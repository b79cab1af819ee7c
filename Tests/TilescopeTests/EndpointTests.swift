import Catalog
import HTTPServer
import Imaging
import ScrollGeometry
import SeededRandom
import Testing
@testable import Tilescope

@Suite struct EndpointTests {
    @Test func parsesEveryShape() throws {
        #expect(try Endpoint.parse(["api", "images"]) == .imageList)
        #expect(try Endpoint.parse(["api", "images", "tiger"]) == .image(id: "tiger"))
        #expect(try Endpoint.parse(["api", "images", "tiger", "viewport"]) == .viewport(id: "tiger"))
        #expect(try Endpoint.parse(["api", "images", "tiger", "rating"]) == .rating(id: "tiger"))
        #expect(try Endpoint.parse(["api", "gallery"]) == .gallery)
        #expect(try Endpoint.parse(["dzi", "tiger.dzi"]) == .deepZoomDescriptor(id: "tiger"))
        #expect(try Endpoint.parse(["dzi", "my_tiger_files", "12", "3_45.jpeg"])
                == .deepZoomTile(id: "my_tiger", level: 12, column: 3, row: 45))
        // The versioned tiles folder, in every format a descriptor offers.
        for format in ["jpeg", "webp", "avif"] {
            #expect(try Endpoint.parse(["dzi", "tiger", "00ab_files", "12", "3_45.\(format)"])
                    == .deepZoomVersionedTile(id: "tiger", version: "00ab", level: 12, column: 3, row: 45, format: format))
        }
        #expect(try Endpoint.parse(["images", "tiger", "preview.jpeg"]) == .preview(id: "tiger"))
        #expect(try Endpoint.parse(["images", "tiger", "preview.avif"]) == .previewFormat(id: "tiger", format: "avif"))
        #expect(try Endpoint.parse(["images", "tiger", "preview.png"]) == .previewFormat(id: "tiger", format: "png"))
        #expect(throws: APIError.self) { try Endpoint.parse(["images", "tiger", "preview.webp"]) }
        #expect(try Endpoint.parse([]) == .staticFile(path: []))
        #expect(try Endpoint.parse(["js", "main.js"]) == .staticFile(path: ["js", "main.js"]))
    }

    @Test(arguments: [
        ["dzi", "t_files", "-1", "0_0.jpeg"], ["dzi", "t_files", "+1", "0_0.jpeg"], ["dzi", "t_files", " 1", "0_0.jpeg"],
        ["dzi", "t_files", "1e3", "0_0.jpeg"], ["dzi", "t_files", "1234567890", "0_0.jpeg"],
        ["dzi", "t_files", "1", "0.jpeg"], ["dzi", "t_files", "1", "0_0_0.jpeg"], ["dzi", "t_files", "1", "_0.jpeg"],
        ["dzi", "t_files", "1", "0_.jpeg"], ["dzi", "t_files", "1", "x_0.jpeg"], ["dzi", "t_files", "1", "0x1_0.jpeg"],
        ["dzi", "t_files", "", "0_0.jpeg"],
    ])
    func malformedTilePathsAre400(segments: [String]) {
        #expect(throws: APIError.self) { try Endpoint.parse(segments) }
        #expect((try? Endpoint.parse(segments)) == nil)
        do { _ = try Endpoint.parse(segments) } catch let error as APIError { #expect(error.status == 400) } catch {}
    }

    @Test(arguments: [["dzi"], ["dzi", "t_files", "1"], ["dzi", "t_files", "1", "0_0.gif"], ["dzi", "t.xml"],
                      ["api"], ["api", "images", "t", "other"], ["images", "t"], ["images", "t", "full.jpeg"]])
    func unknownShapesAre404(segments: [String]) {
        do {
            _ = try Endpoint.parse(segments)
            Issue.record("\(segments) parsed")
        } catch let error as APIError {
            #expect(error.status == 404)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func methodsPerEndpoint() {
        #expect(Endpoint.deepZoomTile(id: "t", level: 0, column: 0, row: 0).allowedMethods == ["GET", "HEAD"])
        #expect(Endpoint.viewport(id: "t").allowedMethods.contains("POST"))
        #expect(Endpoint.rating(id: "t").allowedMethods == ["PUT", "DELETE"])
        #expect(Endpoint.login.allowedMethods == ["GET", "HEAD", "POST"] && Endpoint.probe(id: "t").allowedMethods == ["GET", "HEAD"])
    }
}

/// The table of URL shapes (`URLShape`) read both ways: a path built from a shape parses back to the same
/// endpoint and counts under the same route, for random ids, versions, levels, tiles and IIIF parameters.
@Suite struct URLShapeRoundTripTests {
    /// A segment value: mostly id-like, sometimes any Unicode, slashes and percent signs included (the
    /// builder percent-encodes; the server decodes before parsing).
    static func value(_ random: inout SeededGenerator, nonEmpty: Bool) -> String {
        let alphabet: [String] = "abcdefghijklmnopqrstuvwxyz0123456789-_.~".map { String($0) }
            + ["/", "%", " ", "?", "#", "é", "漢", "😀", "_files", ".dzi"]
        let length = Int.random(in: (nonEmpty ? 1 : 0)...12, using: &random)
        return (0..<length).map { _ in alphabet.randomElement(using: &random)! }.joined()
    }

    @Test func everyShapeBuildsAPathThatParsesBack() throws {
        var random = SeededGenerator(seed: 38)
        var tried = 0
        for round in 0..<400 {
            for shape in URLShape.all {
                var values = URLShape.Values()
                for part in shape.parts {
                    if case let .value(_, nonEmpty) = part { values.strings.append(Self.value(&random, nonEmpty: nonEmpty)) }
                }
                values.level = Int.random(in: 0...999_999_999, using: &random)
                values.column = round % 7 == 0 ? 0 : Int.random(in: 0...999_999_999, using: &random)
                values.row = Int.random(in: 0...99_999, using: &random)
                values.format = URLShape.tileFormats.randomElement(using: &random)!
                let path = shape.path(values)
                let request = Request(method: "GET", rawPath: path)
                let segments = try #require(request.pathSegments, "\(path)")
                // An id that is itself another shape's literal ("gallery") may be taken by the more specific
                // shape first: the table's order says which, and that shape's route is the one counted.
                guard let parsed = try? Endpoint.parse(segments) else {
                    Issue.record("\(path) does not parse")
                    continue
                }
                let expected = shape.make(values)
                if parsed != expected {
                    #expect(URLShape.all.firstIndex { $0.fits(segments) }! < URLShape.all.firstIndex { $0.parts == shape.parts }!,
                            "\(path): \(parsed), not \(expected)")
                }
                #expect(Endpoint.routeIndex(of: request) == parsed.routeIndex, "\(path)")
                tried += 1
            }
        }
        #expect(tried == 400 * URLShape.all.count)
    }

    /// The URLs Tilescope writes come from the same table: the tiles template, the preview, the descriptor.
    @Test func publishedURLsAreTheTablesShapes() throws {
        let urls = PyramidURLs(imageID: "a b", version: "00ff")
        #expect(urls.tiles == "/dzi/a%20b_files/{level}/{col}_{row}.jpeg?v=00ff")
        #expect(urls.preview == "/images/a%20b/preview.jpeg?v=00ff")
        #expect(urls.dzi == "/dzi/a%20b.dzi?v=00ff")
        #expect(urls.tile(TileAddress(level: 3, column: 1, row: 2)) == "/dzi/a%20b_files/3/1_2.jpeg?v=00ff")
        #expect(URLShape.deepZoomTile.template(names: ["id"]) == "/dzi/{id}_files/{level}/{col}_{row}.jpeg")
    }

    /// Each format's tiles template and preview, as `ImageJSON.urls.formats` hands them to clients, filled in
    /// parse back to that format's tile and the preview that goes with it: the client never spells a format.
    @Test func everyFormatsURLsParseBackToThatFormat() throws {
        let urls = PyramidURLs(imageID: "a b/ü", version: "00ff")
        for format in DeepZoomTileFormat.allCases {
            let tile = urls.tiles(in: format).replacingOccurrences(of: "{level}", with: "12")
                .replacingOccurrences(of: "{col}", with: "3").replacingOccurrences(of: "{row}", with: "45")
            let expected: Endpoint = format == .jpeg ? .deepZoomTile(id: "a b/ü", level: 12, column: 3, row: 45)
                : .deepZoomFormatTile(id: "a b/ü", level: 12, column: 3, row: 45, format: format.rawValue)
            #expect(try Self.parse(tile) == expected, "\(tile)")
            #expect(tile.hasSuffix("?v=00ff"))
            let preview = urls.preview(for: format)
            #expect(try Self.parse(preview) == (format == .avif ? .previewFormat(id: "a b/ü", format: "avif") : .preview(id: "a b/ü")),
                    "\(preview)")
            // A transparent image's preview keeps its alpha: PNG, but with AVIF tiles and JPEG ones.
            let alpha = urls.preview(for: format, transparent: true)
            let expectedAlpha: Endpoint = switch format {
            case .avif: .previewFormat(id: "a b/ü", format: "avif")
            case .jpeg: .preview(id: "a b/ü")
            case .png, .webp: .previewFormat(id: "a b/ü", format: "png")
            }
            #expect(try Self.parse(alpha) == expectedAlpha, "\(alpha)")
        }
        #expect(urls.tiles(in: .jpeg) == urls.tiles && urls.preview(for: .jpeg) == urls.preview)
        #expect(urls.tiles(in: .webp) == "/dzi/a%20b%2F%C3%BC_files/{level}/{col}_{row}.webp?v=00ff")
        #expect(urls.preview(for: .avif) == "/images/a%20b%2F%C3%BC/preview.avif?v=00ff")
    }

    /// `url`'s path as the server parses it (its query set aside).
    static func parse(_ url: String) throws -> Endpoint {
        let path = String(url.prefix { $0 != "?" })
        return try Endpoint.parse(try #require(Request(method: "GET", rawPath: path).pathSegments))
    }

    /// The image record offers the formats this server makes, no others, each with its own URLs.
    @Test func theImageJSONOffersEachFormatThisServerMakes() throws {
        let record = ImageRecord(id: "a", fileName: "a.jpg", folder: "/images", version: "00ff",
                                 stamp: SourceFingerprint.Stamp(size: 1, modifiedNanoseconds: 1),
                                 header: ImageHeader(width: 4000, height: 3000, bands: 3), status: .queued)
        let json = ImageJSON(record, title: "a")
        #expect(Set(json.urls.formats.keys) == Set(DeepZoomTileFormat.offeredForEveryImage.map(\.rawValue)))
        for format in DeepZoomTileFormat.offeredForEveryImage {
            #expect(json.urls.formats[format.rawValue]
                    == ImageJSON.FormatURLs(tiles: record.urls.tiles(in: format), preview: record.urls.preview(for: format),
                                            between: record.urls.between(in: format)))
            // The levels between Deep Zoom's are made in JPEG and AVIF only.
            #expect((json.urls.formats[format.rawValue]?.between != nil) == [.jpeg, .avif].contains(format))
        }
        #expect(json.urls.formats["jpeg"] == ImageJSON.FormatURLs(tiles: json.urls.tiles, preview: json.urls.preview,
                                                                   between: "/images/a/between/{level}/{step}/{col}_{row}.jpeg?v=00ff"))
        // A transparent image's pyramid adds PNG, and its previews keep the alpha.
        var transparent = record
        transparent.status = .ready(PyramidManifest(pyramid: try #require(record.pyramid), source: "a.jpg", version: "00ff",
                                                    alpha: true))
        let alpha = ImageJSON(transparent, title: "a")
        #expect(alpha.alpha)
        #expect(Set(alpha.urls.formats.keys) == Set(DeepZoomTileFormat.offered.map(\.rawValue)))
        #expect(alpha.urls.formats["png"]?.preview.hasPrefix("/images/a/preview.png?") == true)
        #expect(alpha.urls.formats["webp"]?.preview.hasPrefix("/images/a/preview.png?") == true)
        // Its tiles are PNG: nothing between Deep Zoom's levels is made from them.
        #expect(alpha.urls.formats.values.allSatisfy { $0.between == nil })
    }
}
