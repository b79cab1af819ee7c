import Foundation
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// `/images/{id}/preview.avif` over real HTTP (`PreviewAVIF`, `PreviewFormatRoutes`): made as the build
/// publishes the level it comes from, never softer than `preview.jpeg` against the finer level's pixels and
/// never more bytes; until made, `preview.jpeg` re-encoded losslessly stands in, briefly cached.
@Suite struct PreviewAVIFTests {
    /// 2000 x 1400: the preview level (10, 1000 x 700) has a finer level (11) to be made from.
    static func server(_ label: String, width: Int = 2000, height: Int = 1400) throws -> TestServer {
        let server = try TestServer(label: label, configure: { $0.rescanSeconds = 3600 }) { folder in
            try SmoothImages.writeJPEG(width: width, height: height, to: folder + "/photo.jpg", seed: 3)
        }
        try server.waitUntilBuilt()
        try InterimFormatTileTests.waitForPreview(server, "photo")
        return server
    }

    static func previewFiles(_ server: TestServer) throws -> PreviewAVIF {
        PreviewAVIF(versionFolder: try InterimFormatTileTests.versionFolder(server, "photo"))
    }

    @Test func aBuiltImageHasItsAVIFPreviewBeforeAnyoneAsks() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("preview-avif-built")
        // Made as the build published level 11, with no request for it (`server` waited for it).
        #expect(FileManager.default.fileExists(atPath: try Self.previewFiles(server).path))
        #expect(try server.get("/metrics").text.contains("tilescope_http_requests_total{route=\"preview\"") == false)
        let version = try #require(server.version(of: "photo"))
        let target = "/images/photo/preview.avif?v=\(version)"
        let made = try server.get(target)
        #expect(made.status == 200 && made.header("content-type") == "image/avif")
        #expect(made.header("cache-control") == HTTPCaching.immutable)
        #expect(made.header("etag") == PreviewAVIF.etag(version: version, isJPEG: false).text)
        #expect(made.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
        let jpeg = try server.get("/images/photo/preview.jpeg?v=\(version)")
        #expect(made.body.count < (try OptimizedJPEG.bytes(jpeg.body)).count)

        // The preview level's picture, at least as close as the JPEG's to the finer level's pixels.
        let avif = try IIIFEndToEndTests.Decoded(made.body), stored = try IIIFEndToEndTests.Decoded(jpeg.body)
        #expect(avif.width == 1000 && avif.height == 700 && stored.width == 1000 && stored.height == 700)
        let record = try #require(server.service.library.record("photo"))
        let pyramid = try #require(record.pyramid)
        let store = server.service.store
        let reader = PyramidRegionReader(pyramid: pyramid) { level, column, row in
            store.tilePath(id: "photo", version: version, level: level, column: column, row: row)
        }
        let reference = try reader.levelFromFinerLevel(pyramid.previewLevel())
        let avifScore = LumaSSIM.score(reference.bytes, bands: reference.bands, avif.pixels, bands: avif.bands,
                                       width: 1000, height: 700)
        let jpegScore = LumaSSIM.score(reference.bytes, bands: reference.bands, stored.pixels, bands: stored.bands,
                                       width: 1000, height: 700)
        #expect(avifScore >= jpegScore, "AVIF \(avifScore), JPEG \(jpegScore)")
        #expect(TestImages.psnr(avif.pixels, stored.pixels) > 30)

        let head = try RawHTTP(port: server.port).send("HEAD", target)
        #expect(head.status == 200 && head.header("content-length") == String(made.body.count))
        let again = try server.get(target, headers: ["If-None-Match": try #require(made.header("etag"))])
        #expect(again.status == 304)
    }

    /// A pyramid whose preview was never made (built by `tilescope build`, or by an older server): HEAD
    /// answers the stand-in and queues nothing; the first GET gets the stand-in and queues the making.
    @Test func untilMadeTheJPEGPreviewStandsInAndHEADNeverQueues() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("preview-avif-interim")
        let files = try Self.previewFiles(server)
        try FileManager.default.removeItem(atPath: (files.path as NSString).deletingLastPathComponent)
        let version = try #require(server.version(of: "photo"))
        let target = "/images/photo/preview.avif?v=\(version)"
        let jpeg = try server.get("/images/photo/preview.jpeg?v=\(version)")

        let head = try RawHTTP(port: server.port).send("HEAD", target)
        #expect(head.status == 200 && head.header("content-type") == "image/jpeg")
        let interim = try #require(head.header("etag"))
        #expect(interim != PreviewAVIF.etag(version: version, isJPEG: false).text && interim.contains(version))
        #expect(try InterimFormatTileTests.metric(server, "tilescope_format_tiles_pending") == 0 && !files.isMade)

        let before = try InterimFormatTileTests.done(server)
        let first = try server.get(target)
        #expect(first.status == 200 && first.header("content-type") == "image/jpeg")
        #expect(first.body == (try OptimizedJPEG.bytes(jpeg.body)) && first.body.count < jpeg.body.count)
        #expect(head.header("content-length") == String(first.body.count))
        #expect(first.header("cache-control") == DerivedFormats.interimCacheControl)
        #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true)
        let stand = try IIIFEndToEndTests.Decoded(first.body), stored = try IIIFEndToEndTests.Decoded(jpeg.body)
        #expect(stand.pixels == stored.pixels)

        try InterimFormatTileTests.waitForEncodings(server)
        #expect(try InterimFormatTileTests.done(server) == before + 1 && files.isMade)
        // A browser revalidating its stand-in gets the AVIF.
        let made = try server.get(target, headers: ["If-None-Match": interim])
        #expect(made.status == 200 && made.header("content-type") == "image/avif")
        #expect(made.header("etag") == PreviewAVIF.etag(version: version, isJPEG: false).text)
    }

    /// An image no larger than the preview has no finer level to make it from: its AVIF URL answers
    /// `preview.jpeg` re-encoded losslessly, for good (the same pixels, fewer bytes, a year's cache).
    @Test func aSmallImageKeepsTheJPEGPreviewInFewerBytes() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("preview-avif-small", width: 700, height: 500)
        let version = try #require(server.version(of: "photo"))
        let files = try Self.previewFiles(server)
        #expect(FileManager.default.fileExists(atPath: files.jpegPath) && !FileManager.default.fileExists(atPath: files.path))
        let kept = try server.get("/images/photo/preview.avif?v=\(version)")
        let jpeg = try server.get("/images/photo/preview.jpeg?v=\(version)")
        #expect(kept.status == 200 && kept.header("content-type") == "image/jpeg")
        #expect(kept.header("etag") == PreviewAVIF.etag(version: version, isJPEG: true).text)
        #expect(kept.header("cache-control") == HTTPCaching.immutable)
        #expect(kept.body == (try OptimizedJPEG.bytes(jpeg.body)))
    }

    /// A grey pyramid (one band in its tiles) gets its preview too: AVIF is encoded as RGB, and the SSIM of
    /// a grey reference against it reads the same luma.
    @Test func aGreyImageGetsItsPreview() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try TestServer(label: "preview-avif-grey", configure: { $0.rescanSeconds = 3600 }) { folder in
            let (width, height) = (1500, 1100)
            let pixels = (0..<(width * height)).map { (i: Int) -> UInt8 in
                let x = i % width, y = i / width
                return UInt8((x * 255 / width + y * 97 / height + (x * y) % 23) % 256)
            }
            try VImage.fromPixels(pixels, width: width, height: height, bands: 1).saveJPEG(to: folder + "/photo.jpg", quality: 90)
        }
        try server.waitUntilBuilt()
        try InterimFormatTileTests.waitForPreview(server, "photo")
        let version = try #require(server.version(of: "photo"))
        let reply = try server.get("/images/photo/preview.avif?v=\(version)")
        let jpeg = try server.get("/images/photo/preview.jpeg?v=\(version)")
        #expect(reply.status == 200 && ["image/avif", "image/jpeg"].contains(reply.header("content-type") ?? ""))
        #expect(reply.header("cache-control") == HTTPCaching.immutable)
        #expect(reply.body.count < jpeg.body.count)
        let preview = try IIIFEndToEndTests.Decoded(reply.body), stored = try IIIFEndToEndTests.Decoded(jpeg.body)
        #expect(preview.width == stored.width && preview.height == stored.height && stored.width == 750)
    }

    @Test func unknownImagesAndOtherFormatsAreClear404s() throws {
        let server = try Self.server("preview-avif-404", width: 300, height: 200)
        for path in ["/images/nobody/preview.avif", "/images/photo/preview.webp", "/images/photo/preview.png"] {
            let reply = try server.get(path)
            #expect(reply.status == 404 && reply.header("content-type")?.hasPrefix("application/json") == true, "\(path)")
            #expect(reply.text.contains("\"message\""), "\(path)")
        }
    }
}
