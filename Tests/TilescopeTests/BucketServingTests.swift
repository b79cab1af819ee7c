import Foundation
import ObjectStore
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// `--images s3://...` end to end: a real SeaweedFS and a real `tilescope serve` on loopback, no mocks. The
/// bucket's objects are listed as images (hostile keys left alone), built from their downloads and served
/// byte for byte as the same files in a folder are; objects over the limits are listed as failed; an object
/// added, replaced or removed is followed from the listing; uploads and deletions go to the bucket; the store
/// gone is said by `/readyz` and by 503 with `Retry-After`, the library standing meanwhile, and its return
/// brings everything back without a restart. A rescan only lists (no download), and a restart builds nothing.
@Suite(.serialized) struct BucketServingTests {
    static let token = "bucket-test-token"

    /// `/api/images` by id.
    static func images(_ server: ServerProcess) -> [String: [String: Any]] {
        let list = (try? RawHTTP.get(server.port, "/api/images?limit=100").json?["images"] as? [[String: Any]]) ?? []
        var byID: [String: [String: Any]] = [:]
        for image in list { if let id = image["id"] as? String { byID[id] = image } }
        return byID
    }

    /// Polls until `condition` holds of the image list, or fails with what was seen.
    @discardableResult
    static func waitFor(_ server: ServerProcess, _ what: String, timeout: Double = 120,
                        _ condition: ([String: [String: Any]]) -> Bool) throws -> [String: [String: Any]] {
        let end = Date().addingTimeInterval(timeout)
        var seen: [String: [String: Any]] = [:]
        while Date() < end {
            seen = images(server)
            if condition(seen) { return seen }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let shown = seen.mapValues { "\($0["status"] ?? "?") \($0["reason"] ?? "")" }
        throw TestFailure("\(what): not after \(timeout) s; images: \(shown)\n\(server.log.suffix(4000))")
    }

    static func status(_ images: [String: [String: Any]], _ id: String) -> String? { images[id]?["status"] as? String }

    static func version(_ image: [String: Any]?) -> String? {
        guard let dzi = (image?["urls"] as? [String: Any])?["dzi"] as? String, let marker = dzi.range(of: "?v=") else { return nil }
        return String(dzi[marker.upperBound...])
    }

    /// The descriptor and every tile of an image, by path without the version.
    static func pyramid(_ server: ServerProcess, _ id: String, width: Int, height: Int, version: String) throws -> [String: [UInt8]] {
        var answers: [String: [UInt8]] = [:]
        var paths = ["/dzi/\(id).dzi"]
        let pyramid = Pyramid(width: width, height: height)
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.tileGrid(ofLevel: level)
            for column in 0..<grid.columns { for row in 0..<grid.rows { paths.append("/dzi/\(id)_files/\(level)/\(column)_\(row).jpeg") } }
        }
        for path in paths {
            let reply = try RawHTTP.get(server.port, path + "?v=\(version)")
            guard reply.status == 200 else { throw TestFailure("\(path) answers \(reply.status): \(reply.text.prefix(300))") }
            answers[path.replacingOccurrences(of: "/\(id)", with: "/X")] = reply.body
        }
        return answers
    }

    static func file(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func readiness(_ server: ServerProcess, until wanted: Int) throws -> RawHTTP.Reply {
        var reply = try RawHTTP.get(server.port, "/readyz")
        let end = Date().addingTimeInterval(60)
        while reply.status != wanted && Date() < end {
            Thread.sleep(forTimeInterval: 0.1)
            reply = try RawHTTP.get(server.port, "/readyz")
        }
        return reply
    }

    /// Polls until the server has made `count` more listing requests (each pass is one here), or fails.
    static func waitForListings(_ server: ServerProcess, _ count: Double, timeout: Double = 60) throws {
        let name = "tilescope_images_bucket_list_requests_total"
        let wanted = try ObjectStoreServingTests.metric(server, name) + count
        let end = Date().addingTimeInterval(timeout)
        while try ObjectStoreServingTests.metric(server, name) < wanted {
            guard Date() < end else { throw TestFailure("fewer than \(Int(count)) listings in \(timeout) s\n\(server.log.suffix(3000))") }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    @Test func aBucketsObjectsAreListedBuiltServedFollowedAndWrittenTo() throws {
        let seaweed = try SeaweedServer.standalone()
        defer { seaweed.stop() }
        let credentials = SigV4Credentials(accessKeyID: seaweed.accessKey, secretAccessKey: seaweed.secretKey)
        let client = try S3Client(settings: S3Settings(endpoint: seaweed.endpoint, region: seaweed.region, bucket: "sources",
                                                       credentials: credentials))
        try client.createBucket()
        let environment = ["AWS_ACCESS_KEY_ID": seaweed.accessKey, "AWS_SECRET_ACCESS_KEY": seaweed.secretKey]

        let root = try TestScratch.folder("bucket-sources")
        let local = root + "/images"
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        try TestImages.writeJPEG(width: 1200, height: 800, to: local + "/harbour.jpg", seed: 1)
        try TestImages.writePNG(width: 500, height: 300, to: local + "/flat.png", seed: 2)
        try TestImages.writeJPEG(width: 1100, height: 1000, to: root + "/big.jpg", seed: 3)  // over --max-pixels
        try TestImages.writePNG(width: 64, height: 48, to: root + "/small.png", seed: 4)
        let small = try Self.file(root + "/small.png")
        _ = try client.putObject("gallery/harbour.jpg", body: try Self.file(local + "/harbour.jpg"))
        _ = try client.putObject("gallery/sub/flat.png", body: try Self.file(local + "/flat.png"))
        _ = try client.putObject("gallery/big.jpg", body: try Self.file(root + "/big.jpg"))
        _ = try client.putObject("gallery/huge.jpg", body: [UInt8](repeating: 0xff, count: 3_100_000))  // over --max-upload-bytes
        _ = try client.putObject("gallery/empty.jpg", body: [])
        // Keys that are no sources, with an image's bytes: were any listed, it would build.
        // (Not "gallery/folder/": SeaweedFS stores a PUT there as "gallery/folder/folder", a name like any other.)
        for key in ["gallery/.hidden.png", "gallery/notes.txt", "gallery/ctl\u{1}.png", "gallery/x.png~", "elsewhere.png"] {
            _ = try? client.putObject(key, body: small)
        }

        let data = root + "/data"
        let images = "s3://sources/gallery?endpoint=\(seaweed.endpoint)&region=\(seaweed.region)"
        let settings = ["--max-pixels", "1000000", "--max-upload-bytes", "3000000", "--admin-token", Self.token]
        let server = try ServerProcess(images: images, data: data, extra: settings, environment: environment)
        var seen = try Self.waitFor(server, "the bucket's images listed, built or failed") {
            Self.status($0, "harbour") == "ready" && Self.status($0, "sub-flat") == "ready" && Self.status($0, "big") == "failed"
        }
        #expect(Set(seen.keys) == ["harbour", "sub-flat", "big", "huge", "empty"],
                "\(seen.mapValues { $0["fileName"] ?? "?" })\n\(server.log.suffix(3000))")
        #expect((seen["big"]?["reason"] as? String)?.contains("1100x1000") == true, "\(seen["big"] ?? [:])")
        #expect((seen["huge"]?["reason"] as? String)?.contains("3100000 bytes") == true, "\(seen["huge"] ?? [:])")
        #expect((seen["empty"]?["reason"] as? String)?.contains("empty") == true, "\(seen["empty"] ?? [:])")
        #expect(server.log.contains("keys are not sources"), "the refused keys are not logged")

        // What the bucket's server answers is what a server on a folder of the same files answers.
        let reference = try ServerProcess(images: local, data: root + "/local")
        let referenceImages = try Self.waitFor(reference, "the folder's images built") {
            Self.status($0, "harbour") == "ready" && Self.status($0, "flat") == "ready"
        }
        for (id, referenceID, width, height) in [("harbour", "harbour", 1200, 800), ("sub-flat", "flat", 500, 300)] {
            let fromBucket = try Self.pyramid(server, id, width: width, height: height, version: try #require(Self.version(seen[id])))
            let fromFolder = try Self.pyramid(reference, referenceID, width: width, height: height,
                                              version: try #require(Self.version(referenceImages[referenceID])))
            #expect(fromBucket == fromFolder, "\(id) from the bucket differs from the folder's")
        }
        #expect(BucketSourcesTests.stagedAfterSettling(data + "/" + SourceDownload.folderName).isEmpty, "downloads left in staging")

        // A pass only lists: three more passes read no object.
        let downloads = try ObjectStoreServingTests.metric(server, "tilescope_images_bucket_downloads_total")
        #expect(downloads == 3, "harbour, sub/flat.png and big.jpg are downloaded once each")
        try Self.waitForListings(server, 3)
        #expect(try ObjectStoreServingTests.metric(server, "tilescope_images_bucket_downloads_total") == downloads,
                "a rescan downloaded an object")

        // Replaced, added, removed: followed from the listing.
        let oldVersion = try #require(Self.version(seen["harbour"]))
        let oldTile = try RawHTTP.get(server.port, "/dzi/harbour_files/10/0_0.jpeg?v=\(oldVersion)").body
        try TestImages.writeJPEG(width: 900, height: 700, to: root + "/harbour2.jpg", seed: 5)
        _ = try client.putObject("gallery/harbour.jpg", body: try Self.file(root + "/harbour2.jpg"))
        _ = try client.putObject("gallery/new.png", body: small)
        try client.deleteObject("gallery/sub/flat.png")
        seen = try Self.waitFor(server, "the bucket's changes followed") {
            Self.status($0, "harbour") == "ready" && Self.version($0["harbour"]) != oldVersion
                && Self.status($0, "new") == "ready" && $0["sub-flat"] == nil
        }
        #expect(seen["harbour"]?["width"] as? Int == 900)
        // The old version's URL now leads to the new version's tile (not cached for long), never the old bytes.
        #expect(try RawHTTP.get(server.port, "/dzi/harbour_files/10/0_0.jpeg?v=\(oldVersion)").body != oldTile,
                "a tile of the replaced version is still served")
        #expect(try RawHTTP.get(server.port, "/api/images/sub-flat").status == 404)

        // An upload goes to the bucket, a deletion takes it out of it.
        let auth = ["Authorization": "Bearer \(Self.token)"]
        let upload = try UploadClient(port: server.port).send("POST", "/api/images?name=up.png", headers: auth, body: small)
        #expect(upload.status == 202, "\(upload.text)")
        #expect(try client.headObject("gallery/up.png").size == small.count)
        try Self.waitFor(server, "the upload built") { Self.status($0, "up") == "ready" }
        let deletion = try UploadClient(port: server.port).send("DELETE", "/api/images/up", headers: auth, body: [])
        #expect(deletion.status == 204, "\(deletion.text)")
        #expect(throws: S3Error.self, "the deleted image's object is still in the bucket") { try client.headObject("gallery/up.png") }
        #expect(try RawHTTP.get(server.port, "/api/images/up").status == 404)

        // The store gone: /readyz says so, the library stands and its tiles are served, an upload is 503.
        seaweed.interrupt()
        let down = try Self.readiness(server, until: 503)
        #expect(down.status == 503 && down.text.contains("images_bucket"), "\(down.text)")
        #expect(Self.status(Self.images(server), "harbour") == "ready", "the library did not stand while the bucket was away")
        let newVersion = try #require(Self.version(seen["harbour"]))
        #expect(try RawHTTP.get(server.port, "/dzi/harbour_files/0/0_0.jpeg?v=\(newVersion)").status == 200)
        let refused = try UploadClient(port: server.port).send("POST", "/api/images?name=late.png", headers: auth, body: small)
        #expect(refused.status == 503, "\(refused.status) \(refused.text)")
        #expect(refused.header("retry-after") != nil)
        #expect(refused.json?["error"] as? String == "images_bucket_unavailable", "\(refused.text)")

        // Back: ready again, and a new object is listed and built, without a restart.
        try seaweed.restart()
        let back = try Self.readiness(server, until: 200)
        #expect(back.status == 200, "\(back.text)")
        _ = try client.putObject("gallery/after.png", body: small)
        try Self.waitFor(server, "an object added after the store came back") { Self.status($0, "after") == "ready" }
        #expect(BucketSourcesTests.stagedAfterSettling(data + "/" + SourceDownload.folderName).isEmpty, "downloads left in staging")
        #expect(server.log.components(separatedBy: "cannot be listed").count - 1 == 1,
                "the listing's failure is said once, not at every pass:\n\(server.log.suffix(3000))")
        #expect(server.log.contains("answers listings again"))

        // A restart serves what the catalog remembers, and its listing finds nothing to build or download.
        try Self.waitForListings(server, 2)  // a pass after the last build saves it to the catalog
        server.signal(SIGTERM)
        #expect(try server.waitForExit() == 0)
        let restarted = try ServerProcess(images: images, data: data, extra: settings, environment: environment)
        let after = try Self.waitFor(restarted, "the restarted server's images") { listed in
            ["harbour", "new", "after"].allSatisfy { Self.status(listed, $0) == "ready" }
        }
        #expect(Self.version(after["harbour"]) == newVersion)
        try Self.waitForListings(restarted, 2)
        #expect(try ObjectStoreServingTests.builds(restarted) == 0, "a restart built again:\n\(restarted.log.suffix(3000))")
        #expect(try ObjectStoreServingTests.metric(restarted, "tilescope_images_bucket_downloads_total") == 0)
    }
}
