import Foundation
import HTTPServer
import Imaging
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// A source that already is a pyramid (a tiled pyramidal JPEG TIFF, made here by libvips) is served from its own
/// levels, with no build (issue 39): published at once with its preview, its Deep Zoom tiles and IIIF renders cut
/// from the source's nearest level, every answer against libvips's own reading of the source. Over real HTTP.
@Suite struct DirectSourceTests {
    static let width = 3000, height = 2000

    static let server: TestServer = {
        let server = try! TestServer(label: "direct-sources") { folder in
            let plain = folder + "/../plain.png"
            try TestImages.writePNG(width: width, height: height, to: plain, seed: 7)
            _ = try Command.run("vips", ["tiffsave", plain, folder + "/slide.tif", "--tile", "--pyramid",
                                         "--compression", "jpeg", "--Q", "90", "--tile-width", "256", "--tile-height", "256"])
            try TestImages.writeJPEG(width: 800, height: 600, to: folder + "/photo.jpg", seed: 3)
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var sourcePath: String { Self.server.images + "/slide.tif" }

    /// A reply body decoded by libvips, kept in memory (the temporary file goes at once).
    static func decoded(_ bytes: [UInt8]) throws -> VImage {
        let path = NSTemporaryDirectory() + "tilescope-direct-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = try VImage.open(path)
        return try VImage.fromPixels(try image.pixels(), width: image.width, height: image.height, bands: image.bands)
    }

    @Test func aPyramidalTIFFIsServedDirectlyAndAPlainImageIsBuilt() throws {
        let server = Self.server
        let slide = try #require(try server.get("/api/images/slide").json)
        #expect(slide["status"] as? String == "ready")
        #expect(slide["served"] as? String == "direct")
        #expect(slide["width"] as? Int == Self.width && slide["height"] as? Int == Self.height)
        let formats = try #require((slide["urls"] as? [String: Any])?["formats"] as? [String: Any])
        #expect(Array(formats.keys) == ["jpeg"])
        let photo = try #require(try server.get("/api/images/photo").json)
        #expect(photo["served"] as? String == "built")
        // Nothing but the descriptor, the preview and the manifest is written for the direct source.
        let version = try #require(slide["version"] as? String)
        let folder = server.data + "/pyramids/slide/" + version
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        #expect(Set(files).isSubset(of: ["image.dzi", "preview.jpeg", "pyramid.json"]), "\(files)")
    }

    /// Each Deep Zoom tile is the source's region at the level's scale, as libvips resizes it.
    @Test(arguments: [(12, 0, 0), (12, 11, 7), (11, 3, 2), (10, 2, 1), (8, 0, 0), (3, 0, 0)])
    func tilesAreTheSourcesPixels(level: Int, column: Int, row: Int) throws {
        let server = Self.server
        let reply = try server.get("/dzi/slide_files/\(level)/\(column)_\(row).jpeg")
        #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
        let served = try Self.decoded(reply.body)
        let pyramid = Pyramid(width: Self.width, height: Self.height)
        let rect = pyramid.tileRect(level: level, column: column, row: row)
        #expect(served.width == rect.width && served.height == rect.height)
        let scale = Double(1 << (pyramid.maxLevel - level))
        let expected = try VImage.open(sourcePath).resize(horizontal: 1 / scale, vertical: 1 / scale)
            .crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        let psnr = TestImages.psnr(try served.pixels(), try expected.pixels())
        #expect(psnr >= 30, "tile \(level)/\(column)_\(row): \(psnr) dB")
        // Asked again: the same bytes, from memory.
        let again = try server.get("/dzi/slide_files/\(level)/\(column)_\(row).jpeg")
        #expect(again.body == reply.body)
        #expect(again.header("server-timing")?.contains("desc=direct") != true)
    }

    @Test func otherTileFormatsAreRefusedWithAReason() throws {
        let reply = try Self.server.get("/dzi/slide_files/12/0_0.webp")
        #expect(reply.status == 404)
        #expect(reply.text.contains("directly"))
    }

    @Test func iiifRegionsComeFromTheSource() throws {
        let reply = try Self.server.get("/iiif/3/slide/1000,500,1200,800/600,/0/default.png")
        #expect(reply.status == 200)
        let served = try Self.decoded(reply.body)
        #expect(served.width == 600 && served.height == 400)
        let expected = try VImage.open(sourcePath).crop(x: 1000, y: 500, width: 1200, height: 800).resize(horizontal: 0.5, vertical: 0.5)
        #expect(TestImages.psnr(try served.pixels(), try expected.pixels()) >= 30)
    }
}
