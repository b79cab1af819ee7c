import Foundation
import Imaging
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// Over real HTTP: the deepest level's AVIF tiles are made from the source's own pixels, in passes down the
/// source, and kept only where their picture reaches the stored JPEG tile's against those pixels; a source
/// that changed since its version was built is never read for them.
@Suite struct SourceTileAVIFTests {
    static func server(_ label: String) throws -> TestServer {
        try InterimFormatTileTests.server(label, width: 900, height: 700, seed: 3)
    }

    /// Tiles asked for bottom row first, then the top row: two passes; every made AVIF decodes to the tile's
    /// size, is smaller than the stored tile, and its SSIM against the source reaches the stored tile's.
    @Test func tilesAskedForInAnyOrderAreMadeFromTheSourceAtTheJPEGsPictureAtLeast() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("source-avif-order")
        let record = try #require(server.service.library.record("photo"))
        let pyramid = try #require(record.pyramid)
        let level = pyramid.maxLevel
        let grid = pyramid.tileGrid(ofLevel: level)
        let tiles = [(0, grid.rows - 1), (grid.columns - 1, grid.rows - 1), (1, 0), (grid.columns - 1, 0)]
        for (column, row) in tiles {
            let first = try server.get("/dzi/photo_files/\(level)/\(column)_\(row).avif")
            #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true)
        }
        try InterimFormatTileTests.waitForEncodings(server)
        let source = try VImage.open(server.images + "/photo.jpg")
        var avif = 0
        for (column, row) in tiles {
            let made = try server.get("/dzi/photo_files/\(level)/\(column)_\(row).avif")
            #expect(made.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            let stored = try server.get("/dzi/photo_files/\(level)/\(column)_\(row).jpeg")
            #expect(made.body.count < stored.body.count)
            guard made.header("content-type") == "image/avif" else { continue }
            avif += 1
            let rect = pyramid.tileRect(level: level, column: column, row: row)
            let reference = try source.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
            let picture = try IIIFEndToEndTests.Decoded(made.body), jpeg = try IIIFEndToEndTests.Decoded(stored.body)
            #expect(picture.width == rect.width && picture.height == rect.height)
            let ssim = LumaSSIM.score(reference, bands: 3, picture.pixels, bands: picture.bands,
                                      width: rect.width, height: rect.height)
            let jpegSSIM = LumaSSIM.score(reference, bands: 3, jpeg.pixels, bands: jpeg.bands,
                                          width: rect.width, height: rect.height)
            #expect(ssim >= jpegSSIM, "\(column)_\(row): \(ssim) against the JPEG's \(jpegSSIM)")
        }
        #expect(avif >= 3, "only \(avif) of \(tiles.count) tiles came out as AVIF on a smooth source")
    }

    /// A source whose fingerprint is not the version's (rewritten since, and not noticed yet) is not read: the
    /// tiles are the stored tiles re-encoded losslessly, and no AVIF file is made. (The pass runs here beside
    /// the server, on a record whose stamp is off by a byte: rewriting the file would be noticed and rebuilt.)
    @Test func aChangedSourceIsNeverReadForAnOlderVersion() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server("source-avif-changed")
        var record = try #require(server.service.library.record("photo"))
        let pyramid = try #require(record.pyramid)
        let level = pyramid.maxLevel
        record.stamp.size += 1
        let store = server.service.store, version = record.version
        let files = DeepZoomFormatTiles(versionFolder: store.versionFolder(id: "photo", version: version), format: .avif)
        let pass = SourceTilePass(record: record, pyramid: pyramid, files: files) { column, row in
            store.tilePath(id: "photo", version: version, level: level, column: column, row: row)
        }
        let passes = SourceTilePasses()
        passes.want("photo/stale", column: 1, row: 1, pass: pass.run)
        passes.want("photo/stale", column: 2, row: 2, pass: pass.run)
        let end = Date().addingTimeInterval(60)
        while passes.counts.pending > 0 {
            guard Date() < end else { throw TestFailure("the pass did not end in 60 s") }
            Thread.sleep(forTimeInterval: 0.01)
        }
        for (column, row) in [(1, 1), (2, 2)] {
            let made = try server.get("/dzi/photo_files/\(level)/\(column)_\(row).avif")
            let stored = try server.get("/dzi/photo_files/\(level)/\(column)_\(row).jpeg")
            #expect(made.header("content-type") == "image/jpeg" && made.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            #expect(made.body == (try OptimizedJPEG.bytes(stored.body)))
            #expect(!FileManager.default.fileExists(atPath: files.path(level: level, column: column, row: row)))
        }
    }
}
