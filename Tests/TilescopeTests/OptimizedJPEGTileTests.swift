import Foundation
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Over real HTTP: a derived-format request answered with JPEG bytes (an AVIF or WebP tile that came out no
/// smaller, or, at the deepest level, did not reach the stored tile's picture) gets the stored tile
/// re-encoded with optimized Huffman tables, the same pixels in fewer bytes under a tag of its own, stored
/// and served again from its file; the plain `.jpeg` URL keeps serving the stored tile byte for byte.
@Suite struct OptimizedJPEGTileTests {
    /// A grainy photograph-like JPEG source, where the standard Huffman tables cost most.
    static let shared: TestServer = {
        let server = try! TestServer(label: "optimized-jpeg", configure: { $0.rescanSeconds = 3600 }) { folder in
            try writeGrain(to: folder + "/grain.jpg")
        }
        try! server.waitUntilBuilt()
        return server
    }()

    /// A 600 x 402 grainy JPEG at Q90: at the deepest level most AVIF tiles do not reach its tiles' picture.
    static func writeGrain(to path: String) throws {
        let (width, height) = (600, 402)
        var grainy = TestImages.pixels(width: width, height: height, seed: 4)
        var random: UInt64 = 0x2545_F491_4F6C_DD1D
        for i in grainy.indices {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            grainy[i] = UInt8(clamping: Int(grainy[i]) / 2 + 64 + Int(random >> 60) * 2 - 16)
        }
        try VImage.fromPixels(grainy, width: width, height: height, bands: 3).saveJPEG(to: path, quality: 90)
    }

    /// At the deepest level the AVIF is made from the source (`SourceTilePasses`); where it does not reach the
    /// stored tile's picture in fewer bytes (this grain), the answer is the re-encoded JPEG: the same pixels.
    @Test func theDeepestLevelsAnswerIsTheSourcesAVIFOrTheStoredTileInFewerBytesAndThePlainURLIsUnchanged() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = Self.shared
        let record = try #require(server.service.library.record("grain"))
        let pyramid = try #require(record.pyramid)
        let level = pyramid.maxLevel
        let grid = pyramid.tileGrid(ofLevel: level)
        // A whole tile, and the edge tiles of the last column and row (odd sizes).
        for (column, row) in [(0, 0), (1, 1), (grid.columns - 1, grid.rows - 1)] {
            let path = "/dzi/grain_files/\(level)/\(column)_\(row)"
            let stored = try Data(contentsOf: URL(fileURLWithPath: server.service.store.tilePath(
                id: "grain", version: record.version, level: level, column: column, row: row)))
            let plain = try server.get(path + ".jpeg")
            #expect(plain.status == 200 && plain.body == [UInt8](stored), "\(path).jpeg is not the stored tile")

            let first = try server.get(path + ".avif?v=\(record.version)")
            #expect(first.status == 200 && first.header("content-type") == "image/jpeg")
            #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true)
            try InterimFormatTileTests.waitForEncodings(server)
            let made = try server.get(path + ".avif?v=\(record.version)")
            #expect(made.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            #expect(made.body.count < plain.body.count, "\(path): \(made.body.count) bytes against \(plain.body.count)")
            let etag = try #require(made.header("etag"))
            if made.header("content-type") == "image/jpeg" {
                #expect(made.body == (try OptimizedJPEG.bytes(plain.body)), "\(path)")
                let picture = try IIIFEndToEndTests.Decoded(made.body), plainPicture = try IIIFEndToEndTests.Decoded(plain.body)
                #expect(picture.pixels == plainPicture.pixels, "\(path): not the stored tile's pixels")
                #expect(etag == DeepZoomFormatTiles.etag(version: record.version, level: level, column: column, row: row,
                                                         format: .avif, isJPEG: true).text)
            } else {
                #expect(made.header("content-type") == "image/avif", "\(path)")
            }
            #expect(etag != plain.header("etag"))
            #expect(try server.get(path + ".avif", headers: ["If-None-Match": etag]).status == 304)
            // The plain URL after the derived one: still the stored tile, byte for byte.
            #expect(try server.get(path + ".jpeg").body == [UInt8](stored))
        }
    }

    /// Below the deepest level, wherever the AVIF came out no smaller than the re-encoded JPEG, the tile is
    /// that JPEG; otherwise the AVIF is smaller than it.
    @Test func belowTheDeepestLevelTheAnswerIsTheSmallerOfAVIFAndTheReencodedJPEG() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = Self.shared
        let pyramid = try #require(server.service.library.record("grain")?.pyramid)
        let level = pyramid.maxLevel - 1
        for (column, row) in [(0, 0), (1, 0)] {
            let path = "/dzi/grain_files/\(level)/\(column)_\(row)"
            let plain = try server.get(path + ".jpeg")
            _ = try server.get(path + ".avif")
            try InterimFormatTileTests.waitForEncodings(server)
            let made = try server.get(path + ".avif")
            #expect(made.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            let reencoded = try OptimizedJPEG.bytes(plain.body)
            if made.header("content-type") == "image/jpeg" {
                #expect(made.body == reencoded, "\(path)")
            } else {
                #expect(made.header("content-type") == "image/avif" && made.body.count < reencoded.count, "\(path)")
            }
        }
    }
}
