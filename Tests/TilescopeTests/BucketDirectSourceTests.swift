import Foundation
import Imaging
import ObjectStore
import TestSupport
import Testing
@testable import Tilescope

/// A pyramidal TIFF in the images bucket (`--images s3://`) is served from its own levels read by ranged GETs, never
/// downloaded: a real SeaweedFS and a real `tilescope serve`. The first view (descriptor, preview, Deep Zoom tiles)
/// costs a small part of the object's bytes (`tilescope_images_bucket_range_bytes_total`), no download is made, a
/// IIIF tile on the file's grid is its stored JPEG sent as stored, pixel for pixel libvips's reading of that page of
/// the source, and a Deep Zoom tile is what a server on a folder holding the same file answers, byte for byte.
@Suite(.serialized) struct BucketDirectSourceTests {
    static let width = 12000, height = 8000

    static func vips(_ arguments: [String]) throws {
        let made = try Command.run("/usr/bin/vips", arguments)
        guard made.status == 0 else { throw TestFailure("vips \(arguments[0]): \(made.output)") }
    }

    /// A pyramidal JPEG TIFF of grainy colour (each band its own noise, as a scan's grain): its tiles are 10-20 KB,
    /// so the object is tens of megabytes, as a real one is, and a view is a small part of it.
    static func makePyramid(_ path: String, scratch: String) throws {
        for band in 1...3 {
            try vips(["gaussnoise", scratch + "/noise\(band).v", "\(width)", "\(height)", "--sigma", "12", "--mean", "128",
                      "--seed", "\(band)"])
        }
        try vips(["bandjoin", "\(scratch)/noise1.v \(scratch)/noise2.v \(scratch)/noise3.v", scratch + "/joined.v"])
        try vips(["cast", scratch + "/joined.v", scratch + "/bytes.v", "uchar"])
        try vips(["copy", scratch + "/bytes.v", scratch + "/srgb.v", "--interpretation", "srgb"])
        try vips(["tiffsave", scratch + "/srgb.v", path, "--tile", "--pyramid", "--compression", "jpeg", "--Q", "85",
                  "--tile-width", "256", "--tile-height", "256"])
        for name in ["noise1", "noise2", "noise3", "joined", "bytes", "srgb"] { unlink(scratch + "/\(name).v") }
    }

    /// `width` x `height` pixels at `x`, `y` of page `page` as libvips's tiffload reads them (through the vips tool).
    static func pageRegion(_ page: Int, of path: String, x: Int, y: Int, width: Int, height: Int) throws -> VImage {
        let cut = NSTemporaryDirectory() + "tilescope-bucket-direct-\(UUID().uuidString).png"
        defer { unlink(cut) }
        try vips(["extract_area", "\(path)[page=\(page)]", cut, "\(x)", "\(y)", "\(width)", "\(height)"])
        let image = try VImage.open(cut)
        return try VImage.fromPixels(try image.pixels(), width: image.width, height: image.height, bands: image.bands)
    }

    @Test func aPyramidalTIFFInTheBucketIsServedByRangesWithoutADownload() throws {
        let seaweed = try SeaweedServer.standalone()
        defer { seaweed.stop() }
        let credentials = SigV4Credentials(accessKeyID: seaweed.accessKey, secretAccessKey: seaweed.secretKey)
        let client = try S3Client(settings: S3Settings(endpoint: seaweed.endpoint, region: seaweed.region, bucket: "slides",
                                                       credentials: credentials))
        try client.createBucket()

        let root = try TestScratch.folder("bucket-direct")
        let local = root + "/images"
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        let source = local + "/scan.tif"
        try Self.makePyramid(source, scratch: root)
        try TestImages.writeJPEG(width: 600, height: 400, to: local + "/photo.jpg", seed: 2)
        let sourceBytes = try BucketServingTests.file(source)
        _ = try client.putObject("gallery/scan.tif", body: sourceBytes)
        _ = try client.putObject("gallery/photo.jpg", body: try BucketServingTests.file(local + "/photo.jpg"))

        let environment = ["AWS_ACCESS_KEY_ID": seaweed.accessKey, "AWS_SECRET_ACCESS_KEY": seaweed.secretKey]
        let images = "s3://slides/gallery?endpoint=\(seaweed.endpoint)&region=\(seaweed.region)"
        // A bound on downloads below the pyramid's size: it is never downloaded, so the bound does not apply to it.
        let server = try ServerProcess(images: images, data: root + "/data", extra: ["--max-upload-bytes", "20000000"],
                                       environment: environment)
        let seen = try BucketServingTests.waitFor(server, "the bucket's images ready") {
            BucketServingTests.status($0, "scan") == "ready" && BucketServingTests.status($0, "photo") == "ready"
        }
        #expect(seen["scan"]?["served"] as? String == "direct", "\(seen["scan"] ?? [:])\n\(server.log.suffix(3000))")
        #expect(seen["photo"]?["served"] as? String == "built", "\(seen["photo"] ?? [:])")
        let version = try #require(BucketServingTests.version(seen["scan"]))

        // The first view: the descriptor, the preview and the tiles of a screen at a middle level and at full size.
        var firstView = ["/dzi/scan.dzi?v=\(version)", "/images/scan/preview.jpeg?v=\(version)"]
        for column in 0..<4 { for row in 0..<3 { firstView.append("/dzi/scan_files/12/\(column)_\(row).jpeg?v=\(version)") } }
        for column in 20..<24 { for row in 14..<17 { firstView.append("/dzi/scan_files/14/\(column)_\(row).jpeg?v=\(version)") } }
        var answers: [String: [UInt8]] = [:]
        for path in firstView {
            let reply = try RawHTTP.get(server.port, path)
            #expect(reply.status == 200, "\(path): \(reply.status) \(reply.text.prefix(200))")
            answers[path] = reply.body
        }
        let fetched = try ObjectStoreServingTests.metric(server, "tilescope_images_bucket_range_bytes_total")
        let requests = try ObjectStoreServingTests.metric(server, "tilescope_images_bucket_range_requests_total")
        let downloads = try ObjectStoreServingTests.metric(server, "tilescope_images_bucket_downloads_total")
        #expect(downloads == 1, "only photo.jpg is downloaded (for its build): \(downloads)")
        #expect(fetched > 0 && fetched < Double(sourceBytes.count) / 4,
                "the first view fetched \(Int(fetched)) of the object's \(sourceBytes.count) bytes in \(Int(requests)) GETs")
        print("bucket-direct: first view of a \(sourceBytes.count)-byte pyramid: \(Int(fetched)) bytes in \(Int(requests)) ranged GETs")
        #expect(BucketSourcesTests.staged(root + "/data/" + SourceDownload.folderName).isEmpty, "a download left in staging")

        // The same file in a folder, served directly by a server of its own: the same Deep Zoom answers.
        let reference = try ServerProcess(images: local, data: root + "/local")
        let referenceImages = try BucketServingTests.waitFor(reference, "the folder's pyramid published") {
            BucketServingTests.status($0, "scan") == "ready"
        }
        let referenceVersion = try #require(BucketServingTests.version(referenceImages["scan"]))
        for path in firstView {
            let reply = try RawHTTP.get(reference.port, path.replacingOccurrences(of: version, with: referenceVersion))
            #expect(reply.status == 200 && reply.body == answers[path], "\(path) differs from a folder's answer")
        }

        // A IIIF tile on the file's grid is its stored JPEG, sent as stored: libvips's reading of that page's tile.
        for (page, column, row) in [(0, 0, 0), (0, 30, 21), (1, 3, 2), (2, 5, 4), (3, 1, 1)] {
            let side = 256 << page
            let path = "/iiif/3/scan/\(column * side),\(row * side),\(side),\(side)/256,/0/default.jpg"
            let reply = try RawHTTP.get(server.port, path)
            #expect(reply.status == 200, "\(path): \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.header("server-timing")?.contains("tile;desc=passed") == true, "\(path): \(reply.header("server-timing") ?? "")")
            let served = try DirectSourceTests.decoded(reply.body)
            let expected = try Self.pageRegion(page, of: source, x: column * 256, y: row * 256, width: 256, height: 256)
            #expect(try served.pixels() == expected.pixels(), "\(path)")
        }
        // A region off the grid is rendered from the levels libvips reads by ranges: what the folder's server renders.
        let region = "/iiif/3/scan/5000,3700,900,600/450,/0/default.png"
        let fromBucket = try RawHTTP.get(server.port, region), fromFolder = try RawHTTP.get(reference.port, region)
        #expect(fromBucket.status == 200 && fromBucket.body == fromFolder.body, "\(region): \(fromBucket.status)")
        #expect(try ObjectStoreServingTests.metric(server, "tilescope_images_bucket_range_bytes_total") < Double(sourceBytes.count),
                "the object was read whole")

        // The store gone: a tile whose blocks were never fetched is the store's failure (503, Retry-After), not a
        // failed render; one already read is answered from memory; the store back, the tile is answered again.
        seaweed.interrupt()
        let cold = "/dzi/scan_files/14/44_29.jpeg?v=\(version)"
        let refused = try RawHTTP.get(server.port, cold)
        #expect(refused.status == 503 && refused.header("retry-after") != nil && refused.text.contains("store_unavailable"),
                "\(refused.status) \(refused.text.prefix(300))")
        // The same for IIIF: a region rendered from blocks never fetched, and a tile of the file's grid never sent.
        for path in ["/iiif/3/scan/9000,6000,700,500/350,/0/default.jpg", "/iiif/3/scan/10240,7168,256,256/256,/0/default.jpg"] {
            let reply = try RawHTTP.get(server.port, path)
            #expect(reply.status == 503 && reply.header("retry-after") != nil && reply.text.contains("store_unavailable"),
                    "\(path): \(reply.status) \(reply.text.prefix(300))")
        }
        #expect(try RawHTTP.get(server.port, firstView[2]).body == answers[firstView[2]])
        try seaweed.restart()
        let answered = try RawHTTP.get(server.port, cold)
        let referenceCold = try RawHTTP.get(reference.port, cold.replacingOccurrences(of: version, with: referenceVersion))
        #expect(answered.status == 200 && answered.body == referenceCold.body, "\(answered.status) \(answered.text.prefix(200))")
    }
}
