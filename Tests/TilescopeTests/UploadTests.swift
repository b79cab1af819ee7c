import Foundation
import TestSupport
import Catalog
import Imaging
import Testing
@testable import Tilescope

/// `POST /api/images`, `GET /api/jobs/{id}` and `DELETE /api/images/{id}` over real HTTP: bodies
/// streamed to disk, checked by libvips, built into tiles by the background queue.
@Suite(.serialized) struct UploadTests {
    // The images are written before the server (which starts libvips) exists.
    init() throws { try Vips.start() }

    static let token = "s3cret-token"
    static let auth = ["Authorization": "Bearer \(token)"]

    static func server(_ label: String, token: String? = UploadTests.token, maxBytes: Int? = nil,
                       populate: (String) throws -> Void = { _ in }) throws -> TestServer {
        try TestServer(label: label, configure: { config in
            config.adminToken = token
            if let maxBytes { config.maxUploadBytes = maxBytes }
        }, populate: populate)
    }

    static func png(width: Int, height: Int, seed: Int = 0) throws -> [UInt8] {
        let image = try VImage.fromPixels(TestImages.pixels(width: width, height: height, seed: seed),
                                          width: width, height: height, bands: 3)
        return try image.pngData()
    }

    /// Polls the job until it leaves queued/building; returns its last JSON.
    static func waitForJob(_ port: Int, _ location: String, timeout: Double = 60) throws -> [String: Any] {
        let end = Date().addingTimeInterval(timeout)
        var seen: Set<String> = []
        while Date() < end {
            let job = try #require(try RawHTTP.get(port, location).json)
            let status = job["status"] as? String ?? "?"
            seen.insert(status)
            #expect(["queued", "building", "ready", "failed"].contains(status))
            let progress = try #require(job["progress"] as? Int)
            #expect((0...100).contains(progress))
            if status == "ready" || status == "failed" { return job }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("job \(location) not finished after \(timeout) s (seen \(seen))")
    }

    /// Names in the images folder, hidden ones included (partial uploads would show here).
    static func folderNames(_ server: TestServer) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: server.images))
    }

    @Test func rawUploadIsBuiltIntoTiles() throws {
        let server = try Self.server("upload-raw")
        let image = try Self.png(width: 700, height: 500, seed: 2)
        let client = try UploadClient(port: server.port)
        let reply = try client.send("POST", "/api/images?name=Harbour%20at%20dusk.png", headers: Self.auth, body: image)
        #expect(reply.status == 202, "\(reply.text)")
        let location = try #require(reply.header("location"))
        #expect(location == "/api/jobs/harbour-at-dusk")
        #expect(reply.json?["id"] as? String == "harbour-at-dusk")
        #expect(["queued", "building", "ready"].contains(reply.json?["status"] as? String ?? ""))
        // The connection stays usable after a streamed body.
        #expect(try client.get("/api/images/harbour-at-dusk").status == 200)

        let job = try Self.waitForJob(server.port, location)
        #expect(job["status"] as? String == "ready")
        #expect(job["progress"] as? Int == 100)
        let json = try #require(try server.get("/api/images/harbour-at-dusk").json)
        #expect(json["width"] as? Int == 700 && json["height"] as? Int == 500)
        #expect(json["title"] as? String == "Harbour at dusk")
        let tile = try server.get("/dzi/harbour-at-dusk_files/9/0_0.jpeg")
        #expect(tile.status == 200)
        #expect(tile.header("content-type") == "image/jpeg")
        #expect(tile.body.starts(with: [0xFF, 0xD8]))
        // Stored as an ordinary source file, byte for byte, with nothing left over.
        #expect(try Self.folderNames(server) == ["Harbour at dusk.png"])
        #expect(FileManager.default.contents(atPath: server.images + "/Harbour at dusk.png") == Data(image))
    }

    /// The server's peak resident memory (VmHWM), in bytes.
    static func peakMemory(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1024
    }

    @Test func bodiesAreStreamedToDiskNotHeldInMemory() throws {
        let root = try TestImages.folder("upload-memory")
        try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        let process = try ServerProcess(images: root + "/images", data: root + "/data",
                                        environment: ["TILESCOPE_ADMIN_TOKEN": Self.token])
        defer { process.signal(SIGKILL) }
        let before = try Self.peakMemory(process.process.processIdentifier)
        // 160 MB that is not an image: read to the end, stored, checked, refused.
        var body = [UInt8](repeating: 0, count: 160 << 20)
        for index in stride(from: 0, to: body.count, by: 4096) { body[index] = UInt8(truncatingIfNeeded: index >> 12) }
        let reply = try UploadClient(port: process.port).send("POST", "/api/images", headers: Self.auth, body: body,
                                                              pieceSize: 1 << 20)
        #expect(reply.status == 415)
        let growth = try Self.peakMemory(process.process.processIdentifier) - before
        #expect(growth < 48 << 20, "the server's peak memory grew by \(growth >> 20) MB for a 160 MB body")
    }

    @Test func chunkedUploadWithContentDispositionName() throws {
        let server = try Self.server("upload-chunked")
        let jpeg = try VImage.fromPixels(TestImages.pixels(width: 300, height: 200), width: 300, height: 200, bands: 3)
            .jpegData(quality: 90)
        let reply = try UploadClient(port: server.port).send(
            "POST", "/api/images", headers: Self.auth.merging(["Content-Disposition": #"attachment; filename="../photos/Été.jpeg""#]) { $1 },
            body: jpeg, framing: .chunked, pieceSize: 1000)
        #expect(reply.status == 202, "\(reply.text)")
        #expect(reply.json?["fileName"] as? String == "Été.jpeg")
        let job = try Self.waitForJob(server.port, try #require(reply.header("location")))
        #expect(job["status"] as? String == "ready")
    }

    @Test func multipartUploadFromABrowserForm() throws {
        let server = try Self.server("upload-multipart")
        let image = try Self.png(width: 260, height: 300, seed: 1)
        let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nignored field\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"my scan.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += image
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        // Small pieces put the boundary across piece edges.
        let reply = try UploadClient(port: server.port).send(
            "POST", "/api/images", headers: Self.auth.merging(["Content-Type": "multipart/form-data; boundary=\(boundary)"]) { $1 },
            body: body, pieceSize: 7)
        #expect(reply.status == 202, "\(reply.text)")
        #expect(reply.json?["fileName"] as? String == "my scan.png")
        #expect(FileManager.default.contents(atPath: server.images + "/my scan.png") == Data(image))
        let job = try Self.waitForJob(server.port, try #require(reply.header("location")))
        #expect(job["status"] as? String == "ready")
        #expect(try server.get("/dzi/my-scan_files/8/0_0.jpeg").status == 200)

        // A form without a file part, and one cut short, are 400 and leave nothing behind.
        let noFile = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nx\r\n--\(boundary)--\r\n".utf8)
        let formHeaders = Self.auth.merging(["Content-Type": "multipart/form-data; boundary=\(boundary)"]) { $1 }
        let missing = try UploadClient(port: server.port).send("POST", "/api/images", headers: formHeaders, body: noFile)
        #expect(missing.status == 400)
        #expect((missing.json?["message"] as? String)?.contains("no file part") == true)
        let cut = Array(body.prefix(body.count - 10))
        let truncated = try UploadClient(port: server.port).send("POST", "/api/images", headers: formHeaders, body: cut)
        #expect(truncated.status == 400)
        #expect(try Self.folderNames(server) == ["my scan.png"])
    }

    @Test func namesAreSanitisedNeverPathsAndNeverReplaceAFile() throws {
        let server = try Self.server("upload-names") { folder in
            try TestImages.writePNG(width: 50, height: 50, to: folder + "/tiger.png")
        }
        let image = try Self.png(width: 64, height: 48)
        func upload(_ query: String) throws -> String? {
            let reply = try UploadClient(port: server.port).send("POST", "/api/images" + query, headers: Self.auth, body: image)
            #expect(reply.status == 202, "\(reply.text)")
            return reply.json?["fileName"] as? String
        }
        #expect(try upload("?name=..%2F..%2Fetc%2Fcaptions.json") == "captions.png")  // the content decides the extension
        #expect(try upload("?name=.hidden.png") == "hidden.png")
        #expect(try upload("?name=tiger.png") == "tiger-2.png")     // taken
        #expect(try upload("?name=Tiger.PNG") == "Tiger-3.png")     // taken in another case, and its id too
        #expect(try upload("") == "upload.png")
        #expect(try upload("?name=%2F%2F") == "upload-2.png")
        // A hundred letters each with nine combining marks: a hundred characters, 1,900 bytes of UTF-8, over the
        // 255 bytes a file name may have (schemathesis found the 507 this was). Whole characters, in 200 bytes.
        let zalgo = String(repeating: "a" + String(repeating: "\u{0301}", count: 9), count: 100)
        let long = try #require(try upload("?name=" + zalgo.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + ".png"))
        #expect(long.utf8.count <= 255 && long.hasSuffix(".png") && long.utf8.starts(with: "a\u{0301}".utf8), "\(long.utf8.count) bytes")
        var names = try Self.folderNames(server)
        #expect(names.remove(long) != nil)
        #expect(names == ["tiger.png", "captions.png", "hidden.png", "tiger-2.png", "Tiger-3.png", "upload.png", "upload-2.png"])
        // The existing image kept its id.
        #expect(try server.get("/api/images/tiger").json?["fileName"] as? String == "tiger.png")
        // A name given twice is refused before the body is taken: which one was meant would be a guess.
        let twice = try UploadClient(port: server.port).send("POST", "/api/images?name=a.png&name=b.png", headers: Self.auth,
                                                              body: image)
        #expect(twice.status == 400)
        #expect(twice.json?["message"] as? String == "name is given twice")
        #expect(try Self.folderNames(server) == names.union([long]))
    }

    @Test func notAnImageIs415() throws {
        let server = try Self.server("upload-415")
        let reply = try UploadClient(port: server.port).send("POST", "/api/images?name=notes.png", headers: Self.auth,
                                                             body: Array("just some text, not pixels\n".utf8))
        #expect(reply.status == 415)
        #expect(reply.json?["error"] as? String == "unsupported_media_type")
        #expect((reply.json?["message"] as? String)?.contains("not an image") == true)
        // A PNG signature with a broken header is no better.
        let broken: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0x41, count: 100)
        let second = try UploadClient(port: server.port).send("POST", "/api/images", headers: Self.auth, body: broken)
        #expect(second.status == 415, "\(second.text)")
        let empty = try UploadClient(port: server.port).send("POST", "/api/images", headers: Self.auth, body: [])
        #expect(empty.status == 400)
        #expect(try Self.folderNames(server).isEmpty)
    }

    /// A 200-byte PNG whose header declares 60000 x 60000 pixels (3.6 gigapixels, about 10 GB decoded).
    static func pixelBomb(width: UInt32 = 60000, height: UInt32 = 60000) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]  // 8-bit RGB
        let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]  // a few zero bytes, deflated
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    @Test func pixelBombIs422WithoutDecoding() throws {
        let server = try Self.server("upload-bomb")
        let bomb = Self.pixelBomb()
        #expect(bomb.count < 200)
        let reply = try UploadClient(port: server.port).send("POST", "/api/images?name=bomb.png", headers: Self.auth, body: bomb)
        // Decoding 3.6 gigapixels would take minutes and ~10 GB; the header alone answers at once.
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json?["error"] as? String == "too_many_pixels")
        #expect((reply.json?["message"] as? String)?.contains("60000x60000") == true)
        #expect(try Self.folderNames(server).isEmpty)
    }

    @Test func anImageWhoseHeaderPassesButWhosePixelsDoNotIsAFailedJob() throws {
        let server = try Self.server("upload-failed")
        // A valid header for 900x700 over a few bytes of pixel data: accepted, then the build fails.
        let reply = try UploadClient(port: server.port).send("POST", "/api/images?name=short.png", headers: Self.auth,
                                                             body: Self.pixelBomb(width: 900, height: 700))
        #expect(reply.status == 202, "\(reply.text)")
        let job = try Self.waitForJob(server.port, try #require(reply.header("location")))
        #expect(job["status"] as? String == "failed")
        #expect((job["reason"] as? String)?.isEmpty == false)
        let image = try #require(try server.get("/api/images/short").json)
        #expect(image["status"] as? String == "failed")
        #expect(try server.get("/dzi/short_files/0/0_0.jpeg").status == 404)
    }

    @Test func oversizeBodiesAre413WithContentLengthAndChunked() throws {
        let server = try Self.server("upload-413", maxBytes: 100_000)
        let big = [UInt8](repeating: 7, count: 300_000)
        // Declared too large: refused before "100 Continue", so the body is never sent.
        let declared = try UploadClient(port: server.port).send("POST", "/api/images", headers: Self.auth, body: big,
                                                                expectContinue: true)
        #expect(declared.status == 413)
        #expect(!declared.sawContinue)
        #expect(declared.json?["error"] as? String == "payload_too_large")
        #expect(declared.header("access-control-allow-origin") == "*")  // readable by a cross-origin page
        // Declared too large and sent anyway, without waiting.
        let pushed = try UploadClient(port: server.port).send("POST", "/api/images", headers: Self.auth, body: big)
        #expect(pushed.status == 413)
        // Chunked: no length up front, so the limit is enforced while it streams.
        let chunked = try UploadClient(port: server.port).send("POST", "/api/images", headers: Self.auth, body: big,
                                                               framing: .chunked, pieceSize: 10_000)
        #expect(chunked.status == 413)
        #expect((chunked.json?["message"] as? String)?.contains("100000 bytes") == true)
        // Exactly at the limit is still read (then refused as not an image, not as too large).
        let atLimit = try UploadClient(port: server.port).send("POST", "/api/images", headers: Self.auth,
                                                               body: [UInt8](repeating: 7, count: 100_000), framing: .chunked)
        #expect(atLimit.status == 415)
        #expect(try Self.folderNames(server).isEmpty)
    }

    @Test func tokensAreRequiredAndCheckedOnUploadAndDelete() throws {
        let server = try Self.server("upload-401") { folder in
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/keep.png")
        }
        let image = try Self.png(width: 32, height: 32)
        for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": "Bearer \(Self.token)x"],
                        ["Authorization": "Basic \(Self.token)"], ["Authorization": "Bearer"]] {
            let reply = try UploadClient(port: server.port).send("POST", "/api/images", headers: headers, body: image)
            #expect(reply.status == 401, "\(headers)")
            #expect(reply.header("www-authenticate")?.hasPrefix("Bearer") == true)
            #expect(reply.json?["error"] as? String == "unauthorized")
            let delete = try RawHTTP(port: server.port).send("DELETE", "/api/images/keep", headers: headers)
            #expect(delete.status == 401)
        }
        #expect(try Self.folderNames(server) == ["keep.png"])
        #expect(try server.get("/api/images/keep").status == 200)
    }

    @Test func withoutATokenUploadsAre403AndSayHowToEnableThem() throws {
        let server = try Self.server("upload-403", token: nil) { folder in
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/keep.png")
        }
        let reply = try UploadClient(port: server.port).send("POST", "/api/images", headers: ["Authorization": "Bearer anything"],
                                                             body: try Self.png(width: 32, height: 32))
        #expect(reply.status == 403)
        #expect(reply.json?["error"] as? String == "uploads_disabled")
        #expect((reply.json?["message"] as? String)?.contains("TILESCOPE_ADMIN_TOKEN") == true)
        #expect(try RawHTTP(port: server.port).send("DELETE", "/api/images/keep").status == 403)
        #expect(try Self.folderNames(server) == ["keep.png"])
    }

    @Test func deleteRemovesSourcePyramidAndRating() throws {
        let server = try Self.server("upload-delete") { folder in
            try TestImages.writePNG(width: 300, height: 300, to: folder + "/doomed.png")
            try TestImages.writePNG(width: 300, height: 300, to: folder + "/other.png", seed: 1)
        }
        try server.waitUntilBuilt()
        _ = try RatingEndpointTests.rate(server.port, "doomed", #"{"rating": 6}"#)
        let copy = try Data(contentsOf: URL(fileURLWithPath: server.images + "/doomed.png"))
        #expect(FileManager.default.fileExists(atPath: server.data + "/pyramids/doomed"))

        let reply = try RawHTTP(port: server.port).send("DELETE", "/api/images/doomed", headers: Self.auth)
        #expect(reply.status == 204)
        #expect(try server.get("/api/images/doomed").status == 404)
        #expect(try server.get("/dzi/doomed_files/8/0_0.jpeg").status == 404)
        #expect(try server.get("/api/jobs/doomed").status == 404)
        #expect(try RawHTTP(port: server.port).send("DELETE", "/api/images/doomed", headers: Self.auth).status == 404)
        #expect(try Self.folderNames(server) == ["other.png"])
        #expect(!FileManager.default.fileExists(atPath: server.data + "/pyramids/doomed"))
        #expect(try server.service.ratings.rating(for: "doomed") == nil)
        #expect(try server.get("/api/images/other").json?["status"] as? String == "ready")

        // Uploading the same image again starts afresh: unrated.
        let again = try UploadClient(port: server.port).send("POST", "/api/images?name=doomed.png", headers: Self.auth, body: Array(copy))
        #expect(again.status == 202)
        #expect(try server.get("/api/images/doomed").json?["rating"] is NSNull)
    }

    @Test func aStartFinishesInterruptedDeletionsAndSweepsOldPartialUploads() throws {
        let server = try Self.server("upload-recover") { folder in
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/kept.png")
            // What a crash in the middle of deleting "gone" leaves: the renamed source, its pyramid, its rating.
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/.deleted.gone.1a2b3c4d")
            let data = (folder as NSString).deletingLastPathComponent + "/data"
            try FileManager.default.createDirectory(atPath: data + "/pyramids/gone/v1", withIntermediateDirectories: true)
            try SQLiteRatingStore(dataFolder: data).setRating(4, for: "gone")
            // A partial upload abandoned two hours ago, and one still arriving.
            FileManager.default.createFile(atPath: folder + "/.upload-old.part", contents: Data([1, 2, 3]))
            var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, folder + "/.upload-old.part", &times, 0) == 0)
            FileManager.default.createFile(atPath: folder + "/.upload-fresh.part", contents: Data([1, 2, 3]))
        }
        #expect(try Self.folderNames(server) == ["kept.png", ".upload-fresh.part"])
        #expect(!FileManager.default.fileExists(atPath: server.data + "/pyramids/gone"))
        #expect(try server.service.ratings.rating(for: "gone") == nil)
        #expect(try server.get("/api/images/gone").status == 404)
        #expect(try server.get("/api/images/kept").status == 200)
    }
}
