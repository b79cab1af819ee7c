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
        #expect(throws: VipsError.self) { try SourceTileRows(source: source, pyramid: fits, maxStripBytes: 300 * 256 * 3 - 1) }
        #expect(throws: VipsError.self) { try SourceTileRows(source: folder + "/missing.png", pyramid: fits) }
    }
}
