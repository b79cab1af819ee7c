import Foundation
import HTTPServer
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Over real HTTP: to a client whose `Accept` names `image/jxl`, the AVIF route's JPEG answers (the stand-in
/// while the AVIF is made, the kept JPEG where it came out no smaller) are the stored JPEG recompressed as
/// JPEG XL: it gives back the stored tile byte for byte, in fewer bytes than the JPEG answer, under tags of its
/// own, and every answer of the route says `Vary: Accept`. Other clients, and the plain `.jpeg` URLs, are
/// answered as before.
@Suite struct JPEGXLAnswerTests {
    static let jxl = ["Accept": "image/jxl,image/avif,image/webp,image/*,*/*;q=0.8"]
    static let noJXL = ["Accept": "image/avif,image/webp,image/*,*/*;q=0.8"]

    /// The grain of `OptimizedJPEGTileTests`: at the deepest level most AVIF tiles do not reach the stored
    /// tile's picture, so the JPEG is kept; the image is no larger than the preview, so is the preview's.
    static func server(_ label: String) throws -> TestServer {
        let server = try TestServer(label: label, configure: { $0.rescanSeconds = 3600 }) { folder in
            try OptimizedJPEGTileTests.writeGrain(to: folder + "/grain.jpg")
        }
        try server.waitUntilBuilt()
        try InterimFormatTileTests.waitForPreview(server, "grain")
        return server
    }

    @Test(arguments: [
        ("image/jxl", true), ("image/jxl,image/avif,image/webp,image/*,*/*;q=0.8", true), ("IMAGE/JXL ; q=0.5", true),
        ("image/avif, image/jxl;q=1", true), ("image/jxl;q=0", false), ("image/jxl; q=0.000", false),
        ("image/avif,image/jxl;q=0,*/*", false), ("image/*", false), ("*/*", false), ("", false),
        ("image/jxlx", false), ("image/jxl;q=nonsense", true),
    ])
    func acceptNamesJPEGXL(accept: String, accepted: Bool) {
        let request = Request(method: "GET", rawPath: "/", headers: ["accept": accept])
        #expect(JPEGXLAnswers.accepted(by: request) == accepted, "\(accept)")
    }

    @Test func theStandInIsTheStoredTileAsJPEGXLToAClientThatAcceptsIt() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("jxl-interim")
        let record = try #require(server.service.library.record("grain"))
        let level = try #require(record.pyramid).maxLevel
        let path = "/dzi/grain_files/\(level)/1_1.avif?v=\(record.version)"
        let stored = try Self.storedTile(server, record, level: level, column: 1, row: 1)

        let first = try server.get(path, headers: Self.jxl)
        #expect(first.status == 200 && first.header("content-type") == "image/jxl")
        #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true)
        #expect(first.header("cache-control") == DerivedFormats.interimCacheControl)
        #expect(first.header("vary") == "Accept")
        let etag = try #require(first.header("etag"))
        #expect(etag.hasSuffix("-interim-jxl\"") && etag.contains(record.version))
        #expect(try JPEGXLRecompression.reconstructedJPEG(first.body) == stored)
        #expect(first.body.count < (try OptimizedJPEG.bytes(stored)).count)
        #expect(try server.get(path, headers: Self.jxl.merging(["If-None-Match": etag]) { $1 }).status == 304)

        // Another client, the same URL: the JPEG stand-in, as before, and saying so.
        let other = try server.get(path, headers: Self.noJXL)
        #expect(other.header("content-type") == "image/jpeg" && other.header("vary") == "Accept")
        #expect(other.body == (try OptimizedJPEG.bytes(stored)))
        #expect(other.header("etag") != etag)
        try InterimFormatTileTests.waitForEncodings(server)
    }

    @Test func aKeptJPEGGoesAsJPEGXLMadeOnceThenFromItsFile() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("jxl-kept")
        let record = try #require(server.service.library.record("grain"))
        let pyramid = try #require(record.pyramid)
        let level = pyramid.maxLevel
        let grid = pyramid.tileGrid(ofLevel: level)
        var keptSeen = 0
        // A whole tile and the last (odd-sized) one.
        for (column, row) in [(0, 0), (1, 0), (grid.columns - 1, grid.rows - 1)] {
            let path = "/dzi/grain_files/\(level)/\(column)_\(row).avif?v=\(record.version)"
            _ = try server.get(path, headers: Self.noJXL)  // queues the tile's pass
            try InterimFormatTileTests.waitForEncodings(server)
            let plain = try server.get(path, headers: Self.noJXL)
            #expect(plain.header("vary") == "Accept")
            guard plain.header("content-type") == "image/jpeg" else {
                // The source's AVIF reached the tile's picture: every client gets it.
                #expect(plain.header("content-type") == "image/avif")
                #expect(try server.get(path, headers: Self.jxl).body == plain.body)
                continue
            }
            let stored = try Self.storedTile(server, record, level: level, column: column, row: row)
            let made = try server.get(path, headers: Self.jxl)
            guard made.header("content-type") == "image/jxl" else {
                // Only where the JPEG XL is the smaller: else the kept JPEG, as for any client.
                #expect(made.body == plain.body && made.header("vary") == "Accept")
                #expect(try JPEGXLRecompression.bytes(stored, effort: TileQualities.jpegXLEffort).count >= plain.body.count, "\(path)")
                continue
            }
            keptSeen += 1
            #expect(made.header("vary") == "Accept")
            #expect(made.header("server-timing")?.hasPrefix("tile;desc=written") == true)
            #expect(made.header("cache-control") == HTTPCaching.immutable)
            #expect(made.body.count < plain.body.count, "\(made.body.count) bytes against \(plain.body.count)")
            #expect(try JPEGXLRecompression.reconstructedJPEG(made.body) == stored)
            let etag = try #require(made.header("etag"))
            #expect(etag.hasSuffix("-jxl\"") && etag != plain.header("etag"))

            let again = try server.get(path, headers: Self.jxl)
            #expect(again.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            #expect(again.body == made.body && again.header("etag") == etag && again.header("vary") == "Accept")
            #expect(try server.get(path, headers: Self.jxl.merging(["If-None-Match": etag]) { $1 }).status == 304)
            // The other client still gets the kept JPEG, and the plain URL the stored tile, never varying.
            #expect(try server.get(path, headers: Self.noJXL).body == plain.body)
            let jpeg = try server.get("/dzi/grain_files/\(level)/\(column)_\(row).jpeg?v=\(record.version)", headers: Self.jxl)
            #expect(jpeg.body == stored && jpeg.header("content-type") == "image/jpeg" && jpeg.header("vary") == nil)
        }
        #expect(keptSeen > 0, "no tile of the grain kept its JPEG and went as JPEG XL: the test checks nothing")
    }

    /// Where the AVIF is kept, a JPEG XL client gets the smallest of it, the stored tile's JPEG XL and a lossy JPEG
    /// XL of the pixels the AVIF was made from (the finer level shrunk, the source's at the deepest level) whose
    /// picture against them reaches the stored tile's, as the AVIF's does; other clients get the AVIF. A smooth
    /// picture's lossy JPEG XL is smaller than its AVIF (the test fails if that encoding is never kept); on the
    /// test pattern some tiles' lossless JPEG XL is the smallest (4,333 bytes against the AVIF's 6,427 for level
    /// 9's 1_0).
    @Test(arguments: ["smooth", "pattern"])
    func aJPEGXLClientGetsTheSmallestAnswerAtTheStoredTilesPicture(picture: String) throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try TestServer(label: "jxl-or-avif-\(picture)", configure: { $0.rescanSeconds = 3600 }) { folder in
            if picture == "smooth" {
                try SmoothImages.writeJPEG(width: 900, height: 600, to: folder + "/grain.jpg", seed: 3)
            } else {
                try TestImages.writeJPEG(width: 900, height: 600, to: folder + "/grain.jpg", seed: 3)
            }
        }
        try server.waitUntilBuilt()
        try InterimFormatTileTests.waitForPreview(server, "grain")
        let record = try #require(server.service.library.record("grain"))
        let pyramid = try #require(record.pyramid)
        let source = try VImage.open(record.sourcePath)
        let finer = PyramidRegionReader(pyramid: pyramid) { level, column, row in
            server.service.store.tilePath(id: record.id, version: record.version, level: level, column: column, row: row)
        }
        var compared = 0, lossy = 0
        for level in [pyramid.maxLevel - 1, pyramid.maxLevel] {
            let grid = pyramid.tileGrid(ofLevel: level)
            for (column, row) in [(0, 0), (1, 0), (grid.columns - 1, grid.rows - 1)] {
                let path = "/dzi/grain_files/\(level)/\(column)_\(row).avif?v=\(record.version)"
                _ = try server.get(path, headers: Self.noJXL)  // queues the AVIF
                try InterimFormatTileTests.waitForEncodings(server)
                let plain = try server.get(path, headers: Self.noJXL)
                guard plain.header("content-type") == "image/avif" else { continue }  // kept as JPEG: tested above
                compared += 1
                let stored = try Self.storedTile(server, record, level: level, column: column, row: row)
                let lossless = try JPEGXLRecompression.bytes(stored, effort: TileQualities.jpegXLEffort)
                let answer = try server.get(path, headers: Self.jxl)
                #expect(answer.header("vary") == "Accept" && answer.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
                guard answer.header("content-type") == "image/jxl" else {
                    #expect(answer.header("content-type") == "image/avif" && answer.body == plain.body, "\(path)")
                    #expect(lossless.count >= plain.body.count, "\(path): the smaller lossless JPEG XL was not kept")
                    continue
                }
                #expect(answer.header("etag")?.hasSuffix("-jxl\"") == true)
                #expect(answer.body.count < plain.body.count, "\(path): a JPEG XL no smaller than the AVIF")
                if answer.body == lossless { continue }
                // Lossy: smaller than the lossless one, and the stored tile's picture or better against the pixels
                // the AVIF was made from.
                lossy += 1
                #expect(answer.body.count < lossless.count, "\(path)")
                let rect = pyramid.tileRect(level: level, column: column, row: row)
                let reference = level == pyramid.maxLevel
                    ? try source.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
                    : try finer.tileFromFinerLevel(level: level, column: column, row: row).bytes
                func ssim(_ bytes: [UInt8]) throws -> Double {
                    let image = try VImage.decoding(bytes)
                    return LumaSSIM.score(reference, bands: source.bands, try image.pixels(), bands: image.bands,
                                          width: rect.width, height: rect.height)
                }
                let (jxl, jpeg) = (try ssim(answer.body), try ssim(stored))
                #expect(jxl >= jpeg, "\(path): SSIM \(jxl) against the stored tile's \(jpeg)")
            }
        }
        #expect(compared > 0, "no AVIF kept: nothing compared")
        if picture == "smooth" { #expect(lossy > 0, "no lossy JPEG XL kept on the smooth picture") }
    }

    /// An image no larger than its preview keeps the preview as JPEG: a JPEG XL client gets its recompression.
    @Test func theKeptPreviewGoesAsJPEGXLToo() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("jxl-preview")
        let record = try #require(server.service.library.record("grain"))
        let path = "/images/grain/preview.avif?v=\(record.version)"
        let plain = try server.get(path, headers: Self.noJXL)
        try #require(plain.header("content-type") == "image/jpeg")
        let made = try server.get(path, headers: Self.jxl)
        #expect(made.header("content-type") == "image/jxl" && made.header("vary") == "Accept")
        #expect(made.body.count < plain.body.count)
        let stored = try Data(contentsOf: URL(fileURLWithPath: server.service.store.previewPath(id: "grain", version: record.version)))
        #expect(try JPEGXLRecompression.reconstructedJPEG(made.body) == [UInt8](stored))
        #expect(try server.get(path, headers: Self.jxl).header("server-timing")?.hasPrefix("tile;desc=stored") == true)
    }

    static func storedTile(_ server: TestServer, _ record: ImageRecord, level: Int, column: Int, row: Int) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: server.service.store.tilePath(
            id: record.id, version: record.version, level: level, column: column, row: row))))
    }
}
