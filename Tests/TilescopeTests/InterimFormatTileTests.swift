import Foundation
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// An AVIF Deep Zoom tile not made yet is answered at once with the JPEG tile's pixels (re-encoded losslessly
/// in fewer bytes), briefly cached under a tag of its own, while the AVIF is made behind the reply (`InterimFormatTiles`, `FormatTileEncodings`);
/// once made it is served from its file with the long cache, and a new source version never meets an old
/// version's tile, made or interim.
@Suite struct InterimFormatTileTests {
    /// A server of its own for each test, on one built JPEG, "photo": what has been made is part of what
    /// each test checks.
    static func server(_ label: String, width: Int = 700, height: Int = 500, seed: Int = 1) throws -> TestServer {
        let server = try TestServer(label: label, configure: { $0.rescanSeconds = 3600 }) { folder in
            try SmoothImages.writeJPEG(width: width, height: height, to: folder + "/photo.jpg", seed: seed)
        }
        try server.waitUntilBuilt()
        try waitForPreview(server, "photo")
        return server
    }

    /// Waits (a bounded poll) until the preview's AVIF answer, queued as the build publishes its level
    /// (`PreviewAVIF`), is made and nothing else is being encoded: what a test counts starts after it.
    static func waitForPreview(_ server: TestServer, _ id: String) throws {
        guard DeepZoomTileFormat.offered.contains(.avif) else { return }
        let files = PreviewAVIF(versionFolder: try versionFolder(server, id))
        let end = Date().addingTimeInterval(120)
        while !files.isMade {
            guard Date() < end else { throw TestFailure("the AVIF preview of \(id) was not made after 120 s") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        try waitForEncodings(server)
    }

    /// Encodings done since start, the preview's included.
    static func done(_ server: TestServer) throws -> Double {
        try metric(server, "tilescope_format_tiles_encoded{result=\"done\"}")
    }

    /// A series of `/metrics`, 0 when absent.
    static func metric(_ server: TestServer, _ series: String) throws -> Double {
        let text = try server.get("/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Waits (a bounded poll, no timing asserted) until nothing waits to be encoded.
    static func waitForEncodings(_ server: TestServer) throws {
        let end = Date().addingTimeInterval(120)
        while try metric(server, "tilescope_format_tiles_pending") > 0 {
            guard Date() < end else { throw TestFailure("AVIF tiles still being made after 120 s") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    static func versionFolder(_ server: TestServer, _ id: String) throws -> String {
        let version = try #require(server.service.library.record(id)?.version)
        return (server.service.store.descriptorPath(id: id, version: version) as NSString).deletingLastPathComponent
    }

    @Test func theFirstRequestGetsTheJPEGAtOnceThenTheAVIFIsServedForAYear() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("interim-first")
        let before = try Self.done(server)
        let version = try #require(server.version(of: "photo"))
        let level = try #require(server.service.library.record("photo")?.pyramid).maxLevel - 1
        let path = "/dzi/photo_files/\(level)/0_0"
        let target = "\(path).avif?v=\(version)"
        let jpeg = try server.get("\(path).jpeg?v=\(version)")
        let final = "\"\(version)-\(level)-0-0-\(DeepZoomTileFormat.avif.folderName)\""

        let first = try server.get(target)
        #expect(first.status == 200 && first.header("content-type") == "image/jpeg")
        // The stored tile's pixels exactly, in fewer bytes: its coefficients with optimized Huffman tables.
        let optimized = try OptimizedJPEG.bytes(jpeg.body)
        #expect(first.body == optimized && first.body.count < jpeg.body.count)
        let stand = try IIIFEndToEndTests.Decoded(first.body), stored = try IIIFEndToEndTests.Decoded(jpeg.body)
        #expect(stand.pixels == stored.pixels && stand.width == stored.width && stand.height == stored.height)
        #expect(first.header("cache-control") == "public, max-age=10")
        #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true)
        let interim = try #require(first.header("etag"))
        #expect(interim != final && interim != jpeg.header("etag") && interim.contains(version))

        try Self.waitForEncodings(server)
        let made = try server.get(target)
        #expect(made.status == 200 && made.header("content-type") == "image/avif")
        #expect(made.header("cache-control") == HTTPCaching.immutable)
        #expect(made.header("etag") == final)
        #expect(made.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
        #expect(made.body.count < jpeg.body.count)
        let picture = try IIIFEndToEndTests.Decoded(made.body), jpegPicture = try IIIFEndToEndTests.Decoded(jpeg.body)
        #expect(picture.width == jpegPicture.width && picture.height == jpegPicture.height)
        #expect(TestImages.psnr(picture.pixels, jpegPicture.pixels) > 30)
        // A browser revalidating its interim copy gets the AVIF, not a 304.
        let revalidated = try server.get(target, headers: ["If-None-Match": interim])
        #expect(revalidated.status == 200 && revalidated.body == made.body)
        #expect(try server.get(target, headers: ["If-None-Match": final]).status == 304)
        #expect(try Self.done(server) == before + 1)
    }

    /// Two requests for the same tile before it is made queue one encoding; HEAD queues none, and a
    /// revalidation of the interim answer meanwhile is a 304.
    @Test func aTileIsMadeOnceAndHEADNeverStartsAnEncoding() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("interim-once")
        let before = try Self.done(server)
        let level = try #require(server.service.library.record("photo")?.pyramid).maxLevel - 1
        let path = "/dzi/photo_files/\(level)/1_0.avif"
        let file = try Self.versionFolder(server, "photo") + "/formats/\(DeepZoomTileFormat.avif.folderName)/\(level)/1_0"

        let head = try RawHTTP(port: server.port).send("HEAD", path)
        #expect(head.status == 200 && head.header("content-type") == "image/jpeg")
        let interim = try #require(head.header("etag"))
        let conditional = try RawHTTP(port: server.port).send("HEAD", path, headers: ["If-None-Match": interim])
        #expect(conditional.status == 304)
        #expect(try Self.metric(server, "tilescope_format_tiles_pending") == 0)
        #expect(!FileManager.default.fileExists(atPath: file + ".avif") && !FileManager.default.fileExists(atPath: file + ".huffman.jpeg"))

        let first = try server.get(path), second = try server.get(path)
        #expect(first.header("content-type") == "image/jpeg" && first.header("etag") == interim)
        #expect(head.header("content-length") == String(first.body.count))  // HEAD tells GET's length
        // The second is the interim answer again or, if the encoding was that quick, the made tile.
        let version = try #require(server.version(of: "photo"))
        let tags = [interim] + [false, true].map {
            DeepZoomFormatTiles.etag(version: version, level: level, column: 1, row: 0, format: .avif, isJPEG: $0).text
        }
        #expect(tags.contains(try #require(second.header("etag"))))
        try Self.waitForEncodings(server)
        #expect(try Self.done(server) == before + 1)
        #expect(FileManager.default.fileExists(atPath: file + ".avif") || FileManager.default.fileExists(atPath: file + ".huffman.jpeg"))
        #expect(try server.get(path).header("server-timing")?.hasPrefix("tile;desc=stored") == true)
    }

    /// The deepest level's AVIF tile is made from the source behind the reply too (`SourceTilePasses`): the
    /// JPEG answers meanwhile; then the AVIF, on this smooth photograph-like source, serves for a year.
    @Test func theDeepestLevelIsMadeFromTheSourceBehindTheReply() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("interim-deepest")
        let before = try Self.done(server)
        let version = try #require(server.version(of: "photo"))
        let level = try #require(server.service.library.record("photo")?.pyramid).maxLevel
        let target = "/dzi/photo_files/\(level)/1_1.avif?v=\(version)"
        let jpeg = try server.get("/dzi/photo_files/\(level)/1_1.jpeg?v=\(version)")
        let first = try server.get(target)
        #expect(first.status == 200 && first.header("content-type") == "image/jpeg")
        let optimized = try OptimizedJPEG.bytes(jpeg.body)
        #expect(first.body == optimized)
        #expect(first.header("cache-control") == "public, max-age=10")
        #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true)
        try Self.waitForEncodings(server)
        let made = try server.get(target)
        #expect(made.status == 200 && made.header("content-type") == "image/avif")
        #expect(made.header("cache-control") == HTTPCaching.immutable)
        #expect(made.header("etag") == DeepZoomFormatTiles.etag(version: version, level: level, column: 1, row: 1,
                                                                 format: .avif, isJPEG: false).text)
        #expect(made.body.count < jpeg.body.count)
        #expect(try Self.done(server) == before + 1)
    }

    /// Old version: interim, then made. New version: its own interim JPEG (new pixels, new tag), then an AVIF
    /// made from the new pixels, never the old one's file.
    @Test func aVersionChangeNeverServesAnOldTile() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try TestServer(label: "interim-version", configure: { $0.rescanSeconds = 3600 }) { folder in
            try SmoothImages.writePNG(width: 600, height: 400, to: folder + "/changing.png", seed: 1)
        }
        try server.waitUntilBuilt()
        let level = try #require(server.service.library.record("changing")?.pyramid).maxLevel - 1
        let tile = "/dzi/changing_files/\(level)/0_0"
        _ = try server.get(tile + ".avif")
        try Self.waitForEncodings(server)
        let old = try server.get(tile + ".avif")
        #expect(old.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
        let oldPicture = try IIIFEndToEndTests.Decoded(old.body)
        let oldVersion = try #require(server.version(of: "changing"))

        try SmoothImages.writePNG(width: 600, height: 400, to: server.images + "/changing.png", seed: 4)
        server.service.sync.sync()
        try server.waitUntilBuilt()
        let newVersion = server.waitForVersion(of: "changing", otherThan: oldVersion)
        try #require(newVersion != oldVersion)

        let jpeg = try server.get(tile + ".jpeg")
        let interim = try server.get(tile + ".avif")
        let optimized = try OptimizedJPEG.bytes(jpeg.body)
        #expect(interim.header("content-type") == "image/jpeg" && interim.body == optimized)
        #expect(interim.header("etag")?.contains(newVersion) == true && interim.header("etag")?.contains(oldVersion) == false)
        try Self.waitForEncodings(server)
        let made = try server.get(tile + ".avif")
        #expect(made.header("content-type") == "image/avif" && made.header("etag")?.contains(newVersion) == true)
        let picture = try IIIFEndToEndTests.Decoded(made.body), newJPEG = try IIIFEndToEndTests.Decoded(jpeg.body)
        #expect(TestImages.psnr(picture.pixels, newJPEG.pixels) > 30)
        #expect(TestImages.psnr(picture.pixels, oldPicture.pixels) < 20)
    }
}
