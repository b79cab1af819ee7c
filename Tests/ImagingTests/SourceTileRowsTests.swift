import Foundation
import ScrollGeometry
import TestSupport
import Testing
@testable import Imaging

/// The deepest level's tiles cut from a source in one pass down it are the source's own pixels of each
/// tile, overlap included: what dzsave cut the stored tiles from.
@Suite struct SourceTileRowsTests {
    static let pyramid = Pyramid(width: 700, height: 530, tileSize: 254, overlap: 1)

    /// The source's pixels of `rect`, read with random access (a fresh decode).
    static func crop(_ source: String, _ rect: PixelRect) throws -> [UInt8] {
        try VImage.open(source).crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
    }

    @Test(arguments: ["png", "jpg"])
    func tilesAreTheSourcesPixelsRowAfterRowWithRowsSkipped(_ format: String) throws {
        let folder = try TestImages.folder("source-tile-rows-\(format)")
        let source = folder + "/source.\(format)"
        if format == "png" {
            try TestImages.writePNG(width: Self.pyramid.width, height: Self.pyramid.height, to: source, seed: 2)
        } else {
            try TestImages.writeJPEG(width: Self.pyramid.width, height: Self.pyramid.height, to: source, seed: 2)
        }
        let rows = try SourceTileRows(source: source, pyramid: Self.pyramid)
        let level = Self.pyramid.maxLevel
        let grid = Self.pyramid.tileGrid(ofLevel: level)
        #expect(grid.columns == 3 && grid.rows == 3)
        // Row 0, then row 2 (row 1 skipped: its strip overlaps both), edge tiles included.
        for (row, columns) in [(0, [0, 2]), (2, [1, 2])] {
            let tiles = try rows.tiles(row: row, columns: columns)
            #expect(tiles.map(\.column) == columns)
            for tile in tiles {
                #expect(tile.rect == Self.pyramid.tileRect(level: level, column: tile.column, row: row))
                #expect(tile.bands == 3 && tile.pixels.count == tile.rect.width * tile.rect.height * 3)
                #expect(tile.pixels == (try Self.crop(source, tile.rect)), "\(format) tile \(tile.column)_\(row)")
            }
        }
        #expect(rows.lastRow == 2)
    }

    @Test func adjacentRowsShareTheirOverlapRows() throws {
        let folder = try TestImages.folder("source-tile-rows-adjacent")
        let source = folder + "/source.jpg"
        try TestImages.writeJPEG(width: Self.pyramid.width, height: Self.pyramid.height, to: source, seed: 5)
        let rows = try SourceTileRows(source: source, pyramid: Self.pyramid)
        for row in 0..<3 {
            let tile = try #require(try rows.tiles(row: row, columns: [1]).first)
            #expect(tile.pixels == (try Self.crop(source, tile.rect)), "row \(row)")
        }
    }

    /// A source that is not the pyramid's size (it was replaced) is refused, and so is one whose strips
    /// would hold more memory than allowed.
    @Test func aSourceOfAnotherSizeOrTooWideIsRefused() throws {
        let folder = try TestImages.folder("source-tile-rows-refused")
        let source = folder + "/source.png"
        try TestImages.writePNG(width: 300, height: 200, to: source)
        #expect(throws: VipsError.self) { try SourceTileRows(source: source, pyramid: Self.pyramid) }
        let fits = Pyramid(width: 300, height: 200, tileSize: 254, overlap: 1)
        _ = try SourceTileRows(source: source, pyramid: fits)
        #expect(throws: VipsError.self) { try SourceTileRows(source: source, pyramid: fits, maxVipsRowBytes: 300 * 3 - 1) }
        #expect(throws: VipsError.self) { try SourceTileRows(source: folder + "/missing.png", pyramid: fits) }
        // A JPEG is read by libjpeg, a few rows at a time: the limit on libvips's rows is not its.
        try TestImages.writeJPEG(width: 300, height: 200, to: folder + "/source.jpg")
        _ = try SourceTileRows(source: folder + "/source.jpg", pyramid: fits, maxVipsRowBytes: 1)
    }

    /// A grey JPEG gives one band, as libvips gives it (and the build cut its tiles from).
    @Test func aGreyJPEGIsReadAsOneBand() throws {
        let folder = try TestImages.folder("source-tile-rows-grey")
        let source = folder + "/grey.jpg"
        let (width, height) = (Self.pyramid.width, Self.pyramid.height)
        let grey = TestImages.pixels(width: width, height: height, seed: 4).enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
        try VImage.fromPixels(grey, width: width, height: height, bands: 1).saveJPEG(to: source, quality: 90)
        let rows = try SourceTileRows(source: source, pyramid: Self.pyramid)
        for row in 0..<3 {
            for tile in try rows.tiles(row: row, columns: [0, 2]) {
                #expect(tile.bands == 1)
                #expect(tile.pixels == (try Self.crop(source, tile.rect)), "grey tile \(tile.column)_\(row)")
            }
        }
    }

    /// A JPEG cut short (a copy interrupted, a full disk) fails the rows it cannot give, and never gives the
    /// grey rows libjpeg would fill in; so does reading on after a failure.
    @Test func aTruncatedJPEGFailsInsteadOfGivingMadeUpRows() throws {
        let folder = try TestImages.folder("source-tile-rows-truncated")
        let whole = folder + "/whole.jpg", cut = folder + "/cut.jpg"
        try TestImages.writeJPEG(width: Self.pyramid.width, height: Self.pyramid.height, to: whole, seed: 6)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let rows = try SourceTileRows(source: cut, pyramid: Self.pyramid)
        _ = try rows.tiles(row: 0, columns: [0])
        #expect(throws: VipsError.self) { try rows.tiles(row: 2, columns: [0, 1, 2]) }
        let garbage = folder + "/garbage.jpg"
        try Data([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 7, count: 100)).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: VipsError.self) { try SourceTileRows(source: garbage, pyramid: Self.pyramid) }
    }
}
