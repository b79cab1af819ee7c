import Foundation
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Over real HTTP: the fit level's AVIF tiles (the level above the preview's) are made once the build is complete,
/// so the first viewer of a new image gets them from their files; no other level's
/// tiles are made before they are asked for, and an image whose fit level is its deepest gets none.
@Suite struct FitLevelAVIFTests {
    @Test func theFitLevelIsMadeByTheBuildAndNothingElse() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        // 4100 px wide: the preview is level max-3 (513 px), the fit level max-2 (1025 x 75: 5 tiles).
        let server = try TestServer(label: "fit-level", configure: { $0.rescanSeconds = 3600 }) { folder in
            try SmoothImages.writeJPEG(width: 4100, height: 300, to: folder + "/wide.jpg", seed: 5)
        }
        try server.waitUntilBuilt()
        try InterimFormatTileTests.waitForPreview(server, "wide")  // and every encoding queued with it
        let record = try #require(server.service.library.record("wide"))
        let pyramid = try #require(record.pyramid)
        let fit = pyramid.previewLevel() + 1
        try #require(fit == pyramid.maxLevel - 2)
        let files = DeepZoomFormatTiles(versionFolder: try InterimFormatTileTests.versionFolder(server, "wide"), format: .avif)
        let grid = pyramid.tileGrid(ofLevel: fit)
        #expect(grid.columns == 5 && grid.rows == 1)
        // Queued as the build publishes its complete pyramid, just after the library says it is ready: a
        // bounded poll (no timing asserted) until every tile is made, without a request for any.
        func made(_ column: Int) -> Bool {
            access(files.path(level: fit, column: column, row: 0), F_OK) == 0
                || access(files.jpegPath(level: fit, column: column, row: 0), F_OK) == 0
        }
        let end = Date().addingTimeInterval(120)
        while !(0..<grid.columns).allSatisfy(made) {
            guard Date() < end else { throw TestFailure("the fit level's tiles were not made by the build after 120 s") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try InterimFormatTileTests.waitForEncodings(server)
        for column in 0..<grid.columns {
            let first = try server.get("/dzi/wide_files/\(fit)/\(column)_0.avif?v=\(record.version)")
            #expect(first.status == 200 && first.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
        }
        // The level below the fit level, and the one above: made only when asked for.
        for level in [fit - 1, fit + 1] {
            #expect(access(files.path(level: level, column: 0, row: 0), F_OK) != 0
                    && access(files.jpegPath(level: level, column: 0, row: 0), F_OK) != 0, "level \(level)")
            let first = try server.get("/dzi/wide_files/\(level)/0_0.avif?v=\(record.version)")
            #expect(first.header("server-timing")?.hasPrefix("tile;desc=interim") == true, "level \(level)")
        }
        try InterimFormatTileTests.waitForEncodings(server)
    }

    /// Up to 2048 px a side the fit level is the deepest, made from the source only when asked for: nothing is made.
    @Test func anImageWhoseFitLevelIsItsDeepestGetsNone() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try TestServer(label: "fit-level-deepest", configure: { $0.rescanSeconds = 3600 }) { folder in
            try SmoothImages.writeJPEG(width: 2000, height: 300, to: folder + "/wide.jpg", seed: 6)
        }
        try server.waitUntilBuilt()
        try InterimFormatTileTests.waitForPreview(server, "wide")
        let pyramid = try #require(server.service.library.record("wide")?.pyramid)
        #expect(pyramid.previewLevel() + 1 == pyramid.maxLevel)
        let formats = try InterimFormatTileTests.versionFolder(server, "wide") + "/formats"
        let made = FileManager.default.enumerator(atPath: formats)?.allObjects.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".avif") || $0.hasSuffix(".jpeg") } ?? []
        #expect(made.isEmpty, "\(made)")
    }
}
