import Foundation
import ObjectStore
import TestSupport
import Testing
@testable import Tilescope

/// A replica with a fresh data folder on a bucket where the pyramids were published by another: none of their files
/// are on its disk, and every kind of answer must fetch what it reads. IIIF regions, coinciding IIIF tiles and info
/// of both API versions, WebP, AVIF and PNG Deep Zoom tiles, JPEG XL answers and the AVIF preview all answer 200;
/// the IIIF and WebP ones byte for byte what a server on a local folder answers. With the store down, a cold one of
/// each kind is 503 `store_unavailable` with `Retry-After`, never a failed render. Real SeaweedFS, real servers.
@Suite(.serialized) struct ObjectStoreColdReplicaTests {
    /// (path, compared byte for byte with the local folder's answer, headers)
    static func requests(_ version: [String: String]) -> [(String, Bool, [String: String])] {
        let (w, t) = (version["cold"]!, version["clear"]!)
        let jxl = ["Accept": "image/jxl,image/avif,image/webp,image/*,*/*;q=0.8"]
        return [
            ("/iiif/3/cold/info.json", false, [:]),  // its id names the server
            ("/iiif/3/cold/0,0,1024,1024/256,/0/default.jpg", true, [:]),
            ("/iiif/3/cold/700,300,600,500/300,/0/default.png", true, [:]),
            ("/iiif/3/cold/0,0,508,508/254,/0/default.jpg", true, [:]),
            ("/iiif/3/cold/full/200,/90/gray.jpg", true, [:]),
            ("/iiif/2/cold/300,200,400,400/200,/0/default.jpg", true, [:]),
            ("/iiif/3/clear/0,0,300,300/150,/0/default.png", true, [:]),
            ("/dzi/cold_files/10/1_1.webp?v=\(w)", true, [:]),
            ("/dzi/cold_files/9/0_0.avif?v=\(w)", false, [:]),
            ("/dzi/cold_files/11/2_1.jpeg?v=\(w)", false, jxl),
            ("/dzi/cold_files/11/3_2.avif?v=\(w)", false, jxl),
            ("/images/cold/preview.avif?v=\(w)", false, [:]),
            ("/dzi/clear_files/9/1_0.png?v=\(t)", true, [:]),
            ("/dzi/clear_files/10/1_1.webp?v=\(t)", true, [:]),
            ("/images/clear/preview.png?v=\(t)", true, [:]),
        ]
    }

    /// With the store down: an image of which no earlier request read anything (nor did work behind the replies,
    /// which follows what was asked: the AVIF preview reads a whole level), asked for as a IIIF region inside one
    /// tile of level 9 (half size), an AVIF and a WebP tile. Its files are checked to be absent from the replica's disk.
    static func coldWhileDown(_ versions: [String: String], cache: String) throws -> [String] {
        let folder = cache + "/pyramids/spare/\(versions["spare"]!)"
        guard access(folder + "/image_files", F_OK) != 0 else { throw TestFailure("spare's tiles are on the replica's disk already") }
        // Level 9 of 1000 x 800 is 500 x 400: the region at half size is 260...460 x 260...360 of it, inside its tile 1_1.
        return ["/iiif/3/spare/520,520,400,200/200,/0/default.jpg",
                "/dzi/spare_files/10/1_1.avif?v=\(versions["spare"]!)",
                "/dzi/spare_files/10/1_0.webp?v=\(versions["spare"]!)"]
    }

    static func versions(_ server: ServerProcess) throws -> [String: String] {
        let end = Date().addingTimeInterval(180)
        while Date() < end {
            let images = (try? RawHTTP.get(server.port, "/api/images").json?["images"] as? [[String: Any]]) ?? []
            var found: [String: String] = [:]
            for image in images where image["status"] as? String == "ready" {
                if let id = image["id"] as? String, let urls = image["urls"] as? [String: Any], let dzi = urls["dzi"] as? String,
                   let marker = dzi.range(of: "?v=") {
                    found[id] = String(dzi[marker.upperBound...])
                }
            }
            if found.count == 3 { return found }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("not every image ready:\n\(server.log.suffix(3000))")
    }

    @Test func aFreshReplicaAnswersEveryFormatFromTheStore() throws {
        let seaweed = try SeaweedServer.standalone()
        defer { seaweed.stop() }
        let bucket = try StoreBucket(seaweed, "cold")
        let (environment, store) = (bucket.environment, bucket.store("replicas"))
        let (root, images) = try StoreBucket.folders("cold-replica")
        try TestImages.writeJPEG(width: 1500, height: 1100, to: images + "/cold.jpg", seed: 7)
        try TestImages.writeTransparentPNG(width: 700, height: 500, to: images + "/clear.png")
        try TestImages.writeJPEG(width: 1000, height: 800, to: images + "/spare.jpg", seed: 8)

        // The builder publishes them, then goes; the reference builds them into a local folder.
        let builder = try ServerProcess(images: images, data: root + "/builder", extra: store, environment: environment)
        let versions = try Self.versions(builder)
        builder.signal(SIGKILL)
        _ = try builder.waitForExit()
        let reference = try ServerProcess(images: images, data: root + "/local")
        #expect(try Self.versions(reference) == versions)

        let fresh = try ServerProcess(images: images, data: root + "/fresh", extra: store, environment: environment)
        #expect(try Self.versions(fresh) == versions)
        let fetched = try ObjectStoreServingTests.metric(fresh, "tilescope_store_fetches_total")
        for (path, same, headers) in Self.requests(versions) {
            let reply = try RawHTTP.get(fresh.port, path, headers: headers)
            #expect(reply.status == 200, "\(path) from the fresh replica: \(reply.status) \(reply.text.prefix(300))")
            #expect(!reply.body.isEmpty)
            if same {
                let expected = try RawHTTP.get(reference.port, path, headers: headers)
                #expect(expected.status == 200 && reply.body == expected.body, "\(path) differs from the local folder's answer")
            }
        }
        #expect(try ObjectStoreServingTests.metric(fresh, "tilescope_store_fetches_total") > fetched, "nothing was fetched")
        #expect(try ObjectStoreServingTests.builds(fresh) == 0, "the fresh replica built what was published")

        // The store gone: what was never fetched is 503 with Retry-After, whichever kind of answer asks for it.
        seaweed.interrupt()
        for path in try Self.coldWhileDown(versions, cache: root + "/fresh/store-cache") {
            let reply = try RawHTTP.get(fresh.port, path)
            #expect(reply.status == 503, "\(path) with the store down: \(reply.status) \(reply.text.prefix(300))")
            #expect(reply.header("Retry-After") != nil, "\(path) with the store down has no Retry-After")
            #expect(reply.json?["error"] as? String == "store_unavailable", "\(path): \(reply.text.prefix(300))")
        }
    }
}
