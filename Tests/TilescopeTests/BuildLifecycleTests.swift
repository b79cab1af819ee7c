import Foundation
import TestSupport
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// Pyramids appear, change and disappear with their sources, and a half-built pyramid
/// is never served, not even after kill -9.
@Suite(.serialized) struct BuildLifecycleTests {
    @Test func imageStillBuildingAnswers503WithRetryAfter() throws {
        let server = try TestServer(label: "building") { folder in
            try TestImages.writePNG(width: 200, height: 200, to: folder + "/small.png")
            try TestImages.writePNG(width: 6000, height: 5000, to: folder + "/large.png")
        }
        // Smallest first: "large" waits behind "small", so right after start it is not ready.
        let reply = try server.get("/dzi/large_files/0/0_0.jpeg")
        #expect(reply.status == 503)
        #expect(reply.json?["error"] as? String == "building")
        let retry = try #require(reply.header("retry-after").flatMap(Int.init))
        #expect(retry >= 1 && retry <= 60)
        #expect(try server.get("/dzi/large.dzi").status == 503)
        let status = try #require(try server.get("/api/images/large").json)
        #expect(status["status"] as? String == "building")
        #expect(status["width"] as? Int == 6000)
        try server.waitUntilBuilt()
        #expect(try server.get("/dzi/large_files/0/0_0.jpeg").status == 200)
        #expect(try server.get("/api/images/large").json?["status"] as? String == "ready")
    }

    @Test func changedSourceGetsANewVersionAndNeverItsOldTiles() throws {
        let server = try TestServer(label: "change") { folder in
            try TestImages.writePNG(width: 600, height: 400, to: folder + "/photo.png", seed: 0)
        }
        try server.waitUntilBuilt()
        let before = try #require(try server.get("/api/images/photo").json?["version"] as? String)
        let oldTile = try server.get("/dzi/photo_files/10/0_0.jpeg")
        #expect(oldTile.header("etag") == "\"\(before)-10-0-0\"")

        // Replace the file with a different image of another size, as an editor would.
        try TestImages.writePNG(width: 900, height: 300, to: server.images + "/photo.tmp.png", seed: 3)
        _ = rename(server.images + "/photo.tmp.png", server.images + "/photo.png")
        let deadline = Date().addingTimeInterval(20)
        var after = before
        while after == before && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            after = (try? server.get("/api/images/photo").json?["version"] as? String) ?? before
        }
        #expect(after != before)
        // From the moment the change is seen, no tile of the old version is served.
        let during = try server.get("/dzi/photo_files/10/0_0.jpeg")
        #expect(during.status == 503 || during.header("etag") == "\"\(after)-10-0-0\"")
        try server.waitUntilBuilt()
        let json = try #require(try server.get("/api/images/photo").json)
        #expect(json["width"] as? Int == 900 && json["height"] as? Int == 300)
        let newTile = try server.get("/dzi/photo_files/10/0_0.jpeg", headers: ["If-None-Match": oldTile.header("etag")!])
        #expect(newTile.status == 200)
        #expect(newTile.header("etag") == "\"\(after)-10-0-0\"")
        #expect(newTile.body != oldTile.body)
        // The old version's files are gone from the store.
        #expect(!FileManager.default.fileExists(atPath: "\(server.data)/pyramids/photo/\(before)"))
    }

    @Test func removedAndAddedFilesArePickedUpWhileRunning() throws {
        let server = try TestServer(label: "rescan") { folder in
            try TestImages.writePNG(width: 300, height: 300, to: folder + "/one.png")
        }
        try server.waitUntilBuilt()
        try TestImages.writePNG(width: 320, height: 200, to: server.images + "/two.png")
        try FileManager.default.removeItem(atPath: server.images + "/one.png")
        let deadline = Date().addingTimeInterval(20)
        var ids: Set<String> = []
        while ids != ["two"] && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let images = (try? server.get("/api/images").json?["images"] as? [[String: Any]]) ?? []
            ids = Set(images.compactMap { $0["id"] as? String })
        }
        #expect(ids == ["two"])
        #expect(try server.get("/dzi/one.dzi").status == 404)
        try server.waitUntilBuilt()
        #expect(try server.get("/dzi/two_files/9/0_0.jpeg").status == 200)
        #expect(!FileManager.default.fileExists(atPath: server.data + "/pyramids/one"))
    }

    @Test func killDuringBuildNeverServesAPartialPyramid() throws {
        let root = try TestImages.folder("crash")
        let images = root + "/images", data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        try TestImages.writeJPEG(width: 12000, height: 9000, to: images + "/big.jpg")

        let first = try ServerProcess(images: images, data: data)
        // Wait until dzsave is writing tiles into staging, then kill -9.
        let deadline = Date().addingTimeInterval(60)
        var progress = 0
        while progress < 5 && Date() < deadline {
            progress = (try? RawHTTP.get(first.port, "/api/images/big").json?["progress"] as? Int) ?? 0
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(progress >= 5 && progress < 100, "the build should be under way, at \(progress)%")
        first.signal(SIGKILL)
        _ = try first.waitForExit()
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: data + "/staging")) ?? []
        #expect(!staged.isEmpty, "the killed build left its staging folder")
        // A progressive build publishes its base (descriptor, preview, coarse levels) first: what was
        // published before the kill is whole levels only, and its manifest says it is not complete.
        let pyramid = Pyramid(width: 12000, height: 9000)
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: data + "/pyramids/big")) ?? []
        for version in versions {
            let folder = "\(data)/pyramids/big/\(version)"
            let manifest = try JSONDecoder().decode(PyramidManifest.self,
                                                    from: Data(contentsOf: URL(fileURLWithPath: folder + "/pyramid.json")))
            #expect(!manifest.isComplete, "the killed build was not complete")
            for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/image_files") {
                guard let level = Int(name) else { continue }  // dzsave's vips-properties.xml
                let grid = pyramid.tileGrid(ofLevel: level)
                let count = try FileManager.default.contentsOfDirectory(atPath: "\(folder)/image_files/\(name)").count
                #expect(count == grid.columns * grid.rows, "published level \(level) is whole")
            }
        }

        // The restarted server takes no partial version for a built one: until the rebuild publishes
        // again, the image is building; whatever it serves is whole.
        let second = try ServerProcess(images: images, data: data)
        let restarted = try RawHTTP.get(second.port, "/api/images/big").json
        #expect(restarted?["status"] as? String == "building")
        for path in ["/dzi/big.dzi", "/dzi/big_files/0/0_0.jpeg", "/dzi/big_files/14/0_0.jpeg", "/images/big/preview.jpeg"] {
            let reply = try RawHTTP.get(second.port, path)
            #expect(reply.status == 503 || reply.status == 200, "\(path) during the rebuild")
            if reply.status == 200 && path.hasSuffix("14/0_0.jpeg") {
                #expect(JPEGSize.of(reply.body) == PixelSize(width: 255, height: 255))
            }
        }
        let end = Date().addingTimeInterval(120)
        while (try? RawHTTP.get(second.port, "/api/images/big").json?["status"] as? String) != "ready" && Date() < end {
            Thread.sleep(forTimeInterval: 0.1)
        }
        // The rebuilt pyramid is whole: every tile of the deepest level is there, a JPEG of its size.
        let connection = try RawHTTP(port: second.port)
        let level = pyramid.maxLevel
        let grid = pyramid.tileGrid(ofLevel: level)
        for column in 0..<grid.columns {
            for row in 0..<grid.rows {
                let reply = try connection.send("GET", "/dzi/big_files/\(level)/\(column)_\(row).jpeg")
                #expect(reply.status == 200, "tile \(column)_\(row)")
                #expect(reply.header("content-type") == "image/jpeg")
                let rect = pyramid.tileRect(level: level, column: column, row: row)
                #expect(JPEGSize.of(reply.body) == PixelSize(width: rect.width, height: rect.height), "tile \(column)_\(row)")
            }
        }
        // The killed server's staging folder is gone, and the live one's holds no build once its sweeper
        // (which removes a finished build's folder after the build is ready) has been through.
        let owners = try FileManager.default.contentsOfDirectory(atPath: data + "/staging").filter { !$0.hasSuffix(".lock") }
        #expect(owners.count == 1, "only the running server's own staging folder: \(owners)")
        for owner in owners {
            let swept = Date().addingTimeInterval(30)
            while (try FileManager.default.contentsOfDirectory(atPath: data + "/staging/" + owner)).isEmpty == false
                    && Date() < swept {
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/staging/" + owner).isEmpty)
        }
        second.signal(SIGTERM)
        #expect(try second.waitForExit() == 0)
    }
}

/// A JPEG's pixel size from its frame header (SOF0-SOF15 but DHT, JPG and DAC): enough to check thousands
/// of tiles without decoding them.
enum JPEGSize {
    static func of(_ bytes: [UInt8]) -> PixelSize? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return PixelSize(width: width, height: height)
            }
            index += 2 + length
        }
        return nil
    }
}
