import Foundation
import TestSupport
import Imaging
import Testing
@testable import Tilescope

/// IIIF Presentation API 3.0 over real HTTP: a Manifest per image, the gallery as one Manifest
/// and as a paged Collection, their ids, sizes, services, validators and errors.
@Suite(.serialized) struct IIIFPresentationTests {
    static let rights = "http://creativecommons.org/licenses/by/4.0/"

    /// Four images of different sizes, one with a title and caption, one whose id is `gallery`;
    /// collection pages of two.
    static let shared: TestServer = {
        let server = try! TestServer(label: "iiif-presentation", configure: { config in
            config.iiifRights = rights
            config.iiifAttribution = "Tilescope test lab"
            config.iiifCollectionPageSize = 2
        }) { folder in
            try TestImages.writePNG(width: 600, height: 400, to: folder + "/alpha.png", seed: 1)
            try TestImages.writePNG(width: 300, height: 500, to: folder + "/beta.png", seed: 2)
            try TestImages.writePNG(width: 1300, height: 700, to: folder + "/gamma.png", seed: 3)
            try TestImages.writePNG(width: 200, height: 150, to: folder + "/gallery.png", seed: 4)
            try Data(#"{"alpha.png": {"title": "The first", "caption": "A caption"}}"#.utf8)
                .write(to: URL(fileURLWithPath: folder + "/captions.json"))
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var server: TestServer { Self.shared }

    func document(_ path: String, headers: [String: String] = [:]) throws -> [String: Any] {
        let reply = try server.get(path, headers: headers)
        try #require(reply.status == 200, "\(path): \(reply.status) \(reply.text)")
        #expect(reply.header("content-type") == "application/ld+json;profile=\"http://iiif.io/api/presentation/3/context.json\"")
        #expect(reply.header("access-control-allow-origin") == "*")
        let json = try #require(reply.json)
        #expect(json["@context"] as? String == "http://iiif.io/api/presentation/3/context.json")
        return json
    }

    static func label(_ value: Any?) -> String? { ((value as? [String: [String]])?.values.first)?.first }

    func canvases(_ manifest: [String: Any]) throws -> [[String: Any]] {
        try #require(manifest["items"] as? [[String: Any]])
    }

    static func body(_ canvas: [String: Any]) -> [String: Any]? {
        let page = (canvas["items"] as? [[String: Any]])?.first
        let annotation = (page?["items"] as? [[String: Any]])?.first
        return annotation?["body"] as? [String: Any]
    }

    @Test func manifestOfOneImage() throws {
        let manifest = try document("/iiif/presentation/alpha/manifest.json")
        #expect(manifest["id"] as? String == "http://127.0.0.1/iiif/presentation/alpha/manifest.json")
        #expect(manifest["type"] as? String == "Manifest")
        #expect(manifest["label"] as? [String: [String]] == ["none": ["The first"]])
        #expect(manifest["summary"] as? [String: [String]] == ["none": ["A caption"]])
        #expect(manifest["rights"] as? String == Self.rights)
        let statement = try #require(manifest["requiredStatement"] as? [String: [String: [String]]])
        #expect(statement["value"] == ["none": ["Tilescope test lab"]])
        let metadata = try #require(manifest["metadata"] as? [[String: [String: [String]]]])
        #expect(metadata.contains { Self.label($0["label"]) == "File name" && Self.label($0["value"]) == "alpha.png" })
        #expect(metadata.contains { Self.label($0["label"]) == "Rating" })

        let canvas = try #require(try canvases(manifest).first)
        #expect(try canvases(manifest).count == 1)
        #expect(canvas["type"] as? String == "Canvas")
        #expect(canvas["width"] as? Int == 600 && canvas["height"] as? Int == 400)
        let page = try #require((canvas["items"] as? [[String: Any]])?.first)
        #expect(page["type"] as? String == "AnnotationPage")
        let annotation = try #require((page["items"] as? [[String: Any]])?.first)
        #expect(annotation["motivation"] as? String == "painting")
        #expect(annotation["target"] as? String == canvas["id"] as? String)
        let body = try #require(annotation["body"] as? [String: Any])
        #expect(body["type"] as? String == "Image" && body["format"] as? String == "image/jpeg")
        #expect(body["id"] as? String == "http://127.0.0.1/iiif/3/alpha/full/max/0/default.jpg")
        let service = try #require((body["service"] as? [[String: String]])?.first)
        #expect(service == ["id": "http://127.0.0.1/iiif/3/alpha", "type": "ImageService3", "profile": "level2"])
    }

    /// Every Canvas is its image's size as the Image API states it, and every URL in it answers.
    @Test func canvasesMatchInfoJSONAndEveryURLAnswers() throws {
        let manifest = try document("/iiif/presentation/gallery/manifest.json")
        let canvases = try canvases(manifest)
        #expect(canvases.count == 4)
        for canvas in canvases {
            let body = try #require(Self.body(canvas))
            let service = try #require((body["service"] as? [[String: String]])?.first?["id"])
            let info = try #require(try server.get(Self.localPath(service) + "/info.json").json)
            #expect(canvas["width"] as? Int == info["width"] as? Int)
            #expect(canvas["height"] as? Int == info["height"] as? Int)
            let image = try server.get(Self.localPath(try #require(body["id"] as? String)))
            #expect(image.status == 200)
            let decoded = try Self.decodedSize(image.body)
            #expect(decoded.0 == body["width"] as? Int && decoded.1 == body["height"] as? Int)
            let thumbnail = try #require((canvas["thumbnail"] as? [[String: Any]])?.first)
            let preview = try server.get(Self.localPath(try #require(thumbnail["id"] as? String)))
            #expect(preview.status == 200)
            #expect(preview.header("cache-control") == HTTPCaching.immutable, "the thumbnail URL is versioned")
            let previewSize = try Self.decodedSize(preview.body)
            #expect(previewSize.0 == thumbnail["width"] as? Int && previewSize.1 == thumbnail["height"] as? Int)
        }
    }

    static func localPath(_ url: String) -> String {
        String(url.dropFirst("http://127.0.0.1".count))
    }

    static func decodedSize(_ bytes: [UInt8]) throws -> (Int, Int) {
        let path = NSTemporaryDirectory() + "tilescope-prezi-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = try VImage.open(path)
        return (image.width, image.height)
    }

    /// The gallery Manifest follows the gallery's order, `sort` included, like `/api/images`.
    @Test func galleryManifestFollowsTheSortOrder() throws {
        _ = try RawHTTP(port: server.port).send("PUT", "/api/images/gamma/rating", headers: ["Content-Type": "application/json"],
                                                body: Array(#"{"rating": 9}"#.utf8))
        for sort in ["name", "rating", "added"] {
            let api = try #require(try server.get("/api/images?sort=\(sort)").json?["images"] as? [[String: Any]])
            let manifest = try document("/iiif/presentation/gallery/manifest.json?sort=\(sort)")
            #expect(manifest["id"] as? String == "http://127.0.0.1/iiif/presentation/gallery/manifest.json?sort=\(sort)")
            let ids = try canvases(manifest).map { ($0["id"] as? String) ?? "" }
            #expect(ids == api.map { "http://127.0.0.1/iiif/presentation/\($0["id"] as! String)/canvas" }, "\(sort)")
        }
        let rated = try canvases(try document("/iiif/presentation/gallery/manifest.json?sort=rating"))
        #expect(Self.label(rated.first?["label"]) == "Gamma")
    }

    @Test func collectionIsPagedByNesting() throws {
        let top = try document("/iiif/presentation/collection.json")
        #expect(top["type"] as? String == "Collection")
        #expect(top["id"] as? String == "http://127.0.0.1/iiif/presentation/collection.json")
        let pages = try #require(top["items"] as? [[String: Any]])
        #expect(pages.map { $0["type"] as? String } == ["Collection", "Collection"])
        #expect(pages.map { $0["id"] as? String } == ["http://127.0.0.1/iiif/presentation/collection.json?page=1",
                                                      "http://127.0.0.1/iiif/presentation/collection.json?page=2"])
        var manifests: [String] = []
        for page in 1...2 {
            let collection = try document("/iiif/presentation/collection.json?page=\(page)")
            let partOf = try #require((collection["partOf"] as? [[String: Any]])?.first)
            #expect(partOf["id"] as? String == top["id"] as? String)
            let items = try #require(collection["items"] as? [[String: Any]])
            #expect(items.allSatisfy { $0["type"] as? String == "Manifest" && ($0["thumbnail"] as? [Any])?.count == 1 })
            manifests += items.compactMap { $0["id"] as? String }
        }
        let names = try #require(try server.get("/api/images?sort=name").json?["images"] as? [[String: Any]])
        #expect(manifests == names.map { "http://127.0.0.1" + Self.manifestPath($0["id"] as! String) })
        for manifest in manifests { #expect(try server.get(Self.localPath(manifest)).status == 200) }
        let sorted = try document("/iiif/presentation/collection.json?sort=RATING&page=1")
        #expect(sorted["id"] as? String == "http://127.0.0.1/iiif/presentation/collection.json?sort=rating&page=1")
    }

    static func manifestPath(_ id: String) -> String {
        id == "gallery" ? "/iiif/presentation/image/gallery/manifest.json" : "/iiif/presentation/\(id)/manifest.json"
    }

    /// `gallery/manifest.json` is the whole gallery's, so an image whose id is `gallery` has its
    /// Manifest at `image/gallery/manifest.json`, and the Collection says so.
    @Test func anImageCalledGalleryKeepsItsOwnManifest() throws {
        let own = try document("/iiif/presentation/image/gallery/manifest.json")
        #expect(own["id"] as? String == "http://127.0.0.1/iiif/presentation/image/gallery/manifest.json")
        let canvas = try #require(try canvases(own).first)
        #expect(try canvases(own).count == 1)
        #expect(canvas["width"] as? Int == 200 && canvas["height"] as? Int == 150)
        #expect(try canvases(try document("/iiif/presentation/gallery/manifest.json")).count == 4)
        // Any id answers at image/{id}/manifest.json, with the id it has in the Collection.
        let alpha = try document("/iiif/presentation/image/alpha/manifest.json")
        #expect(alpha["id"] as? String == "http://127.0.0.1/iiif/presentation/alpha/manifest.json")
    }

    @Test func idsFollowForwardedHeaders() throws {
        let headers = ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "tiles.example.org"]
        let manifest = try document("/iiif/presentation/beta/manifest.json", headers: headers)
        #expect(manifest["id"] as? String == "https://tiles.example.org/iiif/presentation/beta/manifest.json")
        let canvas = try #require(try canvases(manifest).first)
        let body = try #require(Self.body(canvas))
        #expect((body["service"] as? [[String: String]])?.first?["id"] == "https://tiles.example.org/iiif/3/beta")
        #expect(((manifest["thumbnail"] as? [[String: Any]])?.first?["id"] as? String)?
            .hasPrefix("https://tiles.example.org/images/beta/preview.jpeg?v=") == true)
    }

    @Test func etagRevalidatesAndChangesWithTheRating() throws {
        let path = "/iiif/presentation/beta/manifest.json"
        let first = try server.get(path)
        let etag = try #require(first.header("etag"))
        let again = try server.get(path, headers: ["If-None-Match": etag])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(first.header("cache-control") == HTTPCaching.revalidate)
        _ = try RawHTTP(port: server.port).send("PUT", "/api/images/beta/rating", headers: ["Content-Type": "application/json"],
                                                body: Array(#"{"rating": 4}"#.utf8))
        let rated = try server.get(path, headers: ["If-None-Match": etag])
        #expect(rated.status == 200)
        #expect(rated.header("etag") != etag)
        #expect(rated.text.contains("4 of 10"))
    }

    @Test(arguments: [
        ("/iiif/presentation/nothing/manifest.json", 404), ("/iiif/presentation/alpha", 404),
        ("/iiif/presentation/alpha/canvas", 404), ("/iiif/presentation/", 404), ("/iiif/presentation//manifest.json", 404),
        ("/iiif/presentation/collection.json?page=3", 404), ("/iiif/presentation/collection.json?page=0", 400),
        ("/iiif/presentation/collection.json?page=-1", 400), ("/iiif/presentation/collection.json?page=99999999999", 400),
        ("/iiif/presentation/collection.json?sort=size", 400), ("/iiif/presentation/gallery/manifest.json?sort=x", 400),
    ])
    func errorsAreJSONWithCORS(path: String, status: Int) throws {
        let reply = try server.get(path)
        #expect(reply.status == status, "\(path): \(reply.status)")
        #expect(reply.json?["message"] is String, "\(path)")
        #expect(reply.header("access-control-allow-origin") == "*")
    }

    /// A page number past any the Collection can have says the range it must be in; one given twice is refused.
    @Test func collectionPageSaysItsRangeAndIsGivenOnce() throws {
        let huge = try server.get("/iiif/presentation/collection.json?page=99999999999")
        #expect(huge.status == 400)
        #expect(huge.json?["message"] as? String == "page must be a whole number from 1 to 999999999, not '99999999999'")
        let twice = try server.get("/iiif/presentation/collection.json?page=1&page=2")
        #expect(twice.status == 400)
        #expect(twice.json?["message"] as? String == "page is given twice")
        #expect(try server.get("/iiif/presentation/collection.json?sort=name&sort=rating").json?["message"] as? String
            == "sort is given twice")
        #expect(try server.get("/iiif/presentation/collection.json?page=1&_=1&_=2").status == 200)
    }

    @Test func headAndOptions() throws {
        let connection = try RawHTTP(port: server.port)
        for path in ["/iiif/presentation/alpha/manifest.json", "/iiif/presentation/collection.json",
                     "/iiif/presentation/gallery/manifest.json", "/iiif/2/alpha/info.json"] {
            let head = try connection.send("HEAD", path)
            #expect(head.status == 200 && head.body.isEmpty && head.header("etag") != nil, "\(path)")
            let options = try connection.send("OPTIONS", path)
            #expect(options.status == 204 && options.header("access-control-allow-methods") == "GET, HEAD, OPTIONS", "\(path)")
            #expect(try connection.send("POST", path).status == 405, "\(path)")
        }
    }

    @Test func emptyGalleryHasAnEmptyCollectionAndNoGalleryManifest() throws {
        let server = try TestServer(label: "iiif-presentation-empty") { _ in }
        let collection = try server.get("/iiif/presentation/collection.json")
        #expect(collection.status == 200)
        #expect((collection.json?["items"] as? [Any])?.isEmpty == true)
        #expect(try server.get("/iiif/presentation/gallery/manifest.json").status == 404)
    }
}
