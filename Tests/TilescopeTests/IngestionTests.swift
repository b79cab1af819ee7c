import Foundation
import TestSupport
import Imaging
import Testing
@testable import Tilescope

/// Files in the images folder, over real HTTP: one bad file never holds up the others, a file
/// still being copied in is not built until it stops changing, failures are listed with their own
/// reason (relative to the images folder) and remembered, and uploads take every documented format.
@Suite(.serialized) struct IngestionTests {
    // Test images are written before the server (which starts libvips) exists.
    init() throws { try Vips.start() }

    static func server(_ label: String, settle: Double = 0, configure: @escaping (inout ServeConfig) -> Void = { _ in },
                       populate: (String) throws -> Void) throws -> TestServer {
        try TestServer(label: label, configure: { config in
            config.settleSeconds = settle
            configure(&config)
        }, populate: populate)
    }

    static func image(_ server: TestServer, _ id: String) -> [String: Any]? {
        try? server.get("/api/images/\(id)").json
    }

    /// Build outcomes counted by the server since it started.
    static func builds(_ server: TestServer, _ outcome: String) -> Int {
        let text = (try? server.get("/metrics").text) ?? ""
        let prefix = "tilescope_pyramid_builds_total{outcome=\"\(outcome)\"} "
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            return Int(line.dropFirst(prefix.count)) ?? -1
        }
        return -1
    }

    /// A valid 16x16 JPEG whose SOF0 header is patched to declare `width` x `height`: a few hundred
    /// bytes that a decoder would expand into a huge grey image.
    static func jpegBomb(width: UInt16 = 60000, height: UInt16 = 60000) throws -> [UInt8] {
        var bytes = try VImage.fromPixels(TestImages.pixels(width: 16, height: 16), width: 16, height: 16, bands: 3)
            .jpegData(quality: 90)
        guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            throw TestFailure("no SOF0 marker")
        }
        // FF C0, length (2), precision (1), height (2), width (2).
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    // MARK: - Item 3: limits apply to folder files, and a long build cannot starve small images

    @Test func aFolderPixelBombFailsFromItsHeaderWithoutBuilding() throws {
        let server = try Self.server("folder-bomb") { folder in
            try Self.write(try Self.jpegBomb(), to: folder + "/bomb.jpg")
            try TestImages.writePNG(width: 16, height: 16, to: folder + "/tiny.png")
        }
        #expect(try Self.jpegBomb().count < 1000)
        let bomb = try #require(Self.image(server, "bomb"))
        // Refused by the scan itself: never queued, never handed to the builder.
        #expect(bomb["status"] as? String == "failed")
        let reason = try #require(bomb["reason"] as? String)
        #expect(reason.contains("60000x60000"), "\(reason)")
        #expect(reason.contains("--max-pixels"), "\(reason)")
        try server.waitUntilBuilt(timeout: 60)
        #expect(Self.image(server, "tiny")?["status"] as? String == "ready")
        #expect(Self.builds(server, "built") == 1)
        #expect(Self.builds(server, "failed") == 0)
        #expect(!FileManager.default.fileExists(atPath: server.data + "/pyramids/bomb"))
    }

    @Test func folderFilesObeyTheServersPixelLimit() throws {
        let server = try Self.server("folder-limit", configure: { $0.maxPixels = 100_000 }) { folder in
            try TestImages.writePNG(width: 400, height: 300, to: folder + "/big.png")      // 120 000 pixels
            try TestImages.writePNG(width: 300, height: 300, to: folder + "/fits.png")     // 90 000 pixels
        }
        try server.waitUntilBuilt(timeout: 60)
        let big = try #require(Self.image(server, "big"))
        #expect(big["status"] as? String == "failed")
        #expect((big["reason"] as? String)?.contains("100000") == true, "\(big)")
        #expect(Self.image(server, "fits")?["status"] as? String == "ready")
    }

    @Test func aLongBuildDoesNotHoldUpASmallImage() throws {
        let server = try Self.server("starve") { folder in
            // 100 megapixels: seconds of dzsave, written by libvips as a stream.
            try VImage.zonePlate(width: 10000, height: 10000).linear(127, 128).castToUChar()
                .saveJPEG(to: folder + "/large.jpg", quality: 80)
        }
        let end = Date().addingTimeInterval(120)
        while (Self.image(server, "large")?["progress"] as? Int ?? 0) < 1 && Date() < end {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(Self.image(server, "large")?["status"] as? String == "building")
        try TestImages.writePNG(width: 16, height: 16, to: server.images + "/small.png")
        server.service.sync.sync()  // seen now, not at the next rescan
        var small: String?
        while small != "ready" && small != "failed" && Date() < end {
            Thread.sleep(forTimeInterval: 0.02)
            small = Self.image(server, "small")?["status"] as? String
        }
        // The small image was built while the large one still was: it did not wait behind it.
        let large = Self.image(server, "large")?["status"] as? String
        #expect(small == "ready")
        #expect(large == "building", "the large build had ended before the small image was ready")
        try server.waitUntilBuilt(timeout: 120)
        #expect(Self.image(server, "large")?["status"] as? String == "ready")
    }

    // MARK: - Item 4: a file still being copied in is built once, when complete

    @Test func aFileCopiedInSlowlyIsBuiltOnceAndNeverShownFailed() throws {
        // Pieces come 0.3 s apart: only a stall of the writer over 2 s could make the file look complete.
        let server = try Self.server("settle", settle: 2) { _ in }
        let bytes = try VImage.fromPixels(TestImages.pixels(width: 900, height: 700, seed: 4), width: 900, height: 700,
                                          bands: 3).jpegData(quality: 95)
        let path = server.images + "/slow.jpg"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        var seen: Set<String> = []
        // Ten pieces, 0.3 s apart: the rescan (every second) sees the file at several lengths.
        let pieces = 10
        let pieceSize = (bytes.count + pieces - 1) / pieces
        for start in stride(from: 0, to: bytes.count, by: pieceSize) {
            try handle.write(contentsOf: bytes[start..<min(bytes.count, start + pieceSize)])
            try handle.synchronize()
            let deadline = Date().addingTimeInterval(0.3)
            while Date() < deadline {
                if let status = Self.image(server, "slow")?["status"] as? String { seen.insert(status) }
                Thread.sleep(forTimeInterval: 0.03)
            }
        }
        try handle.close()
        let end = Date().addingTimeInterval(60)
        var status: String?
        while status != "ready" && Date() < end {
            status = Self.image(server, "slow")?["status"] as? String
            if let status { seen.insert(status) }
            Thread.sleep(forTimeInterval: 0.03)
        }
        #expect(status == "ready")
        #expect(!seen.contains("failed"), "statuses seen: \(seen)")
        #expect(Self.builds(server, "built") == 1)
        #expect(Self.builds(server, "failed") == 0)
        #expect(Self.builds(server, "discarded") == 0)
        #expect(Self.image(server, "slow")?["width"] as? Int == 900)
    }

    // MARK: - Item 5: empty files, remembered failures, ETA

    @Test func anEmptyFileIsListedAsFailedAndChangesNothingAtTheNextScans() throws {
        let server = try Self.server("empty") { folder in
            _ = FileManager.default.createFile(atPath: folder + "/empty.jpg", contents: nil)
            try TestImages.writePNG(width: 32, height: 32, to: folder + "/fine.png")
        }
        try server.waitUntilBuilt(timeout: 60)
        let images = try #require(try server.get("/api/images").json?["images"] as? [[String: Any]])
        let empty = try #require(images.first { $0["id"] as? String == "empty" }, "the empty file is listed")
        #expect(empty["status"] as? String == "failed")
        #expect((empty["reason"] as? String)?.contains("empty") == true, "\(empty)")
        // "images folder changed" is logged when a scan reports a change: the next scans report none.
        #expect(server.service.sync.sync() == false)
        #expect(server.service.sync.sync() == false)
    }

    @Test func aFailedBuildIsRememberedAcrossARestartUntilTheFileChanges() throws {
        let root = try TestImages.folder("remember")
        let images = root + "/images", data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        // A header that passes (900x700) over pixels that do not: the build fails.
        try Self.write(UploadTests.pixelBomb(width: 900, height: 700), to: images + "/broken.png")
        let environment = ["TILESCOPE_SETTLE_SECONDS": "0"]

        let first = try ServerProcess(images: images, data: data, environment: environment)
        var reason: String?
        let end = Date().addingTimeInterval(60)
        while reason == nil && Date() < end {
            let json = try? RawHTTP.get(first.port, "/api/images/broken").json
            if json?["status"] as? String == "failed" { reason = json?["reason"] as? String }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(reason != nil, "\(first.log)")
        #expect(first.log.contains("building broken"))
        first.signal(SIGTERM)
        #expect(try first.waitForExit() == 0)

        let second = try ServerProcess(images: images, data: data, environment: environment)
        let json = try #require(try RawHTTP.get(second.port, "/api/images/broken").json)
        #expect(json["status"] as? String == "failed")
        #expect(json["reason"] as? String == reason)
        // The full scan after the restore has looked at the unchanged file, and no build is queued or running:
        // one it had queued would have logged "building broken" by now.
        let scanned = Date().addingTimeInterval(60)
        while !(second.stderr.contains("first scan of ") && Self.buildsIdle(second)) {
            guard Date() < scanned else { throw TestFailure("no first scan, or builds still busy, after 60 s: \(second.log)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(!second.log.contains("building broken"), "\(second.log)")
        // A changed file (new fingerprint) is built again.
        try Self.write(UploadTests.pixelBomb(width: 901, height: 700), to: images + "/broken.png")
        let rebuilt = Date().addingTimeInterval(60)
        while !second.log.contains("building broken") && Date() < rebuilt { Thread.sleep(forTimeInterval: 0.05) }
        #expect(second.log.contains("building broken"))
        second.signal(SIGTERM)
        #expect(try second.waitForExit() == 0)
    }

    /// No build queued or running, as the server's /metrics says.
    static func buildsIdle(_ server: ServerProcess) -> Bool {
        guard let metrics = try? RawHTTP.get(server.port, "/metrics"), metrics.status == 200 else { return false }
        let lines = metrics.text.split(separator: "\n")
        return ["tilescope_pyramid_builds_queued 0", "tilescope_pyramid_builds_running 0"].allSatisfy { lines.contains(Substring($0)) }
    }

    // MARK: - Item 7: each failure carries its own reason, relative to the images folder

    @Test func concurrentFailuresEachNameOnlyTheirOwnFileAndNoServerPath() throws {
        let names = ["short-a.png", "short-b.png", "cut.jpg", "cut.avif", "text.jpg", "text.png"]
        let server = try Self.server("reasons", configure: { $0.buildConcurrency = 3 }) { folder in
            try Self.write(UploadTests.pixelBomb(width: 900, height: 700), to: folder + "/short-a.png")
            try Self.write(UploadTests.pixelBomb(width: 700, height: 900), to: folder + "/short-b.png")
            let jpeg = try VImage.fromPixels(TestImages.pixels(width: 800, height: 600), width: 800, height: 600, bands: 3)
                .jpegData(quality: 90)
            try Self.write(Array(jpeg.prefix(jpeg.count / 3)), to: folder + "/cut.jpg")
            try Self.write(Array(Self.avif.prefix(Self.avif.count - 200)), to: folder + "/cut.avif")
            try Self.write(Array("plain text\n".utf8), to: folder + "/text.jpg")
            try Self.write(Array("more text\n".utf8), to: folder + "/text.png")
        }
        try server.waitUntilBuilt(timeout: 60)
        for name in names {
            let record = server.service.library.all.first { $0.fileName == name }
            guard case .failed(let reason)? = record?.status else {
                Issue.record("\(name) should have failed: \(String(describing: record?.status))")
                continue
            }
            #expect(reason.contains(name), "\(name): \(reason)")
            for other in names where other != name && !name.contains(other) && !other.contains(name) {
                #expect(!reason.contains(other), "\(name)'s reason names \(other): \(reason)")
            }
            #expect(!reason.contains(server.images), "\(name)'s reason has a server path: \(reason)")
            #expect(!reason.contains(NSTemporaryDirectory()), "\(name)'s reason has a server path: \(reason)")
        }
    }

    @Test func anUnreadableUploadIsRefusedWithoutAServerPath() throws {
        let server = try UploadTests.server("upload-path")
        // An AVIF cut short: libheif's "bad seek" names the file libvips was reading.
        let reply = try UploadClient(port: server.port).send("POST", "/api/images", headers: UploadTests.auth,
                                                             body: Array(Self.avif.prefix(350)))
        #expect(reply.status == 415)
        let message = try #require(reply.json?["message"] as? String)
        #expect(!message.contains(server.images) && !message.contains(NSTemporaryDirectory()), "\(message)")
        #expect(!message.contains(".upload-"), "\(message)")
    }

    /// Found in a gallery: after `alpha.tif` was built, a truncated JPEG failed with a line of another
    /// operation first ("trunc.jpg: source: bad seek to 348" then its own "VipsJpeg: Premature end of
    /// input file"), where alone it gave only its own line.
    @Test func aFailureAfterAnotherFilesBuildHasOnlyItsOwnLines() throws {
        let cut = try VImage.fromPixels(TestImages.pixels(width: 900, height: 700), width: 900, height: 700, bands: 3)
            .jpegData(quality: 90)
        let alone = try Self.server("reason-alone") { folder in
            try Self.write(Array(cut.prefix(cut.count / 3)), to: folder + "/trunc.jpg")
        }
        try alone.waitUntilBuilt(timeout: 60)
        let expected = try #require(Self.image(alone, "trunc")?["reason"] as? String)

        let server = try Self.server("reason-after-alpha") { folder in
            try TestImages.writeAlphaTIFF(width: 700, height: 500, to: folder + "/alpha.tif")
        }
        try server.waitUntilBuilt(timeout: 60)
        #expect(Self.image(server, "alpha")?["status"] as? String == "ready")
        try Self.write(Array(cut.prefix(cut.count / 3)), to: server.images + "/.trunc.jpg")
        #expect(rename(server.images + "/.trunc.jpg", server.images + "/trunc.jpg") == 0)
        let end = Date().addingTimeInterval(60)
        var reason: String?
        while reason == nil && Date() < end {
            if Self.image(server, "trunc")?["status"] as? String == "failed" { reason = Self.image(server, "trunc")?["reason"] as? String }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(reason == expected, "alone: \(expected)")
    }

    // MARK: - Item 8: uploads accept every format the docs list

    /// 16x16 black AVIF and HEIC made by libvips's heifsave (embedded: not every libheif can encode).
    static let avif = [UInt8](Data(base64Encoded: "AAAAHGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZgAAASttZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAABAAAANGlsb2MAAAAAREAAAgABAAAAAAFPAAEAAAAAAAAAGQACAAAAAAFoAAEAAAAAAAAAvgAAADhpaW5mAAAAAAACAAAAFWluZmUCAAAAAAEAAGF2MDEAAAAAFWluZmUCAAABAAIAAEV4aWYAAAAAamlwcnAAAABLaXBjbwAAABNjb2xybmNseAACAAIABoAAAAAMYXYxQ4EADAAAAAAUaXNwZQAAAAAAAAAQAAAAEAAAABBwaXhpAAAAAAMICAgAAAAXaXBtYQAAAAAAAAABAAEEgYIDhAAAABppcmVmAAAAAAAAAA5jZHNjAAIAAQABAAAA321kYXQSAAoJGAz/2CBAQNCAMgoYAAAAQACpjlmkAAAABkV4aWYAAElJKgAIAAAABgASAQMAAQAAAAEAAAAaAQUAAQAAAFYAAAAbAQUAAQAAAF4AAAAoAQMAAQAAAAIAAAATAgMAAQAAAAEAAABphwQAAQAAAGYAAAAAAAAAOGMAAOgDAAA4YwAA6AMAAAYAAJAHAAQAAAAwMjEwAZEHAAQAAAABAgMAAKAHAAQAAAAwMTAwAaADAAEAAAD//wAAAqAEAAEAAAAQAAAAA6AEAAEAAAAQAAAAAAAAAA==")!)
    static let heic = [UInt8](Data(base64Encoded: "AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAAAeRtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAABAAEAAAAExpbG9jAQAAAERAAAMAAQAAAAAAAAIIAAEAAAAAAAAAKwACAAEAAAAAAAAAAQAAAAAAAAAIAAMAAAAAAAACMwABAAAAAAAAAL4AAABNaWluZgAAAAAAAwAAABVpbmZlAgAAAQABAABodmMxAAAAABVpbmZlAgAAAAACAABncmlkAAAAABVpbmZlAgAAAQADAABFeGlmAAAAANhpcHJwAAAAtmlwY28AAAB2aHZjQwEDcAAAAAAAAAAAAB7wAPz9+PgAAA8DIAABABhAAQwB//8DcAAAAwCQAAADAAADAB66AkAhAAEAKkIBAQNwAAADAJAAAAMAAAMAHqAggQWW6q6a5uBAQMCAAAADAIAAAAMAhCIAAQAGRAHBc8GJAAAAFGlzcGUAAAAAAAAAQAAAAEAAAAAUaXNwZQAAAAAAAAAQAAAAEAAAABBwaXhpAAAAAAMICAgAAAAaaXBtYQAAAAAAAAACAAECgQIAAgIDhAAAAChpcmVmAAAAAAAAAA5kaW1nAAIAAQABAAAADmNkc2MAAwABAAIAAADxbWRhdAAAACcoAa8TITGW+E5Qp//9Z4XNDJVMWrlPpXPdClCTcn64/vKHk8ViguAAAAAGRXhpZgAASUkqAAgAAAAGABIBAwABAAAAAQAAABoBBQABAAAAVgAAABsBBQABAAAAXgAAACgBAwABAAAAAgAAABMCAwABAAAAAQAAAGmHBAABAAAAZgAAAAAAAAA4YwAA6AMAADhjAADoAwAABgAAkAcABAAAADAyMTABkQcABAAAAAECAwAAoAcABAAAADAxMDABoAMAAQAAAP//AAACoAQAAQAAABAAAAADoAQAAQAAABAAAAAAAAAA")!)

    @Test func everyDocumentedFormatUploadsAndBuilds() throws {
        let server = try UploadTests.server("upload-formats")
        let picture = try VImage.fromPixels(TestImages.pixels(width: 40, height: 30), width: 40, height: 30, bands: 3)
        let samples: [(String, [UInt8])] = [
            ("JPEG", try picture.encoded(as: .jpeg)), ("PNG", try picture.encoded(as: .png)),
            ("TIFF", try picture.encoded(as: .tiff)), ("WebP", try picture.encoded(as: .webp)),
            ("GIF", try picture.encoded(as: .gif)), ("HEIF", Self.heic), ("HEIF", Self.avif),
        ]
        // The list the docs give is the list the server accepts.
        #expect(Set(samples.map(\.0)) == Set(UploadFormat.accepted.map(\.name)))
        for (index, (format, bytes)) in samples.enumerated() {
            let reply = try UploadClient(port: server.port).send("POST", "/api/images?name=sample-\(index)",
                                                                 headers: UploadTests.auth, body: bytes)
            #expect(reply.status == 202, "\(format): \(reply.text)")
            guard reply.status == 202, let location = reply.header("location") else { continue }
            let job = try UploadTests.waitForJob(server.port, location)
            #expect(job["status"] as? String == "ready", "\(format): \(job)")
        }
    }
}
