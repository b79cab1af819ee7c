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
        #expect(try Endpoint.parse(["images", "tiger", "preview.avif"]) == .previewAVIF(id: "tiger"))
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

    @Test(arguments: [["dzi"], ["dzi", "t_files", "1"], ["dzi", "t_files", "1", "0_0.png"], ["dzi", "t.xml"],
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
        #expect(Endpoint.rating(id: "t").allowedMethods == ["PUT"])
    }
}
