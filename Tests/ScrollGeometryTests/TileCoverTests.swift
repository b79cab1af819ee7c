import Testing
@testable import ScrollGeometry

/// Rules 9-10: which tiles, in which order, drawn where.
@Suite struct TileCoverTests {
    let pyramid = Pyramid(width: 4096, height: 2048)

    @Test func coverIsEveryCellTheRoundedRectangleTouches() {
        // visibleRect (200, 100, 2048, 1536) at level 11 (s = 1/2): level pixels 100..<1124 x 50..<818.
        let cover = TileCover(pyramid: pyramid, level: 11, imageRect: Rect(x: 200, y: 100, width: 2048, height: 1536))
        #expect(cover.levelRect == PixelRect(x: 100, y: 50, width: 1024, height: 768))
        #expect(cover.columns == 0..<5)
        #expect(cover.rows == 0..<4)
        #expect(cover.count == 20)
    }

    @Test func edgesRoundOutwardWithTolerance() {
        let flat = Pyramid(width: 2000, height: 2000, tileSize: 100, overlap: 0)  // maxLevel 11
        // Low edge 99.5 floors to 99: column 0 is touched. High edge 200.2 ceils to 201: column 2 is touched.
        let cover = TileCover(pyramid: flat, level: 11, imageRect: Rect(x: 99.5, y: 100, width: 100.7, height: 100))
        #expect(cover.columns == 0..<3)
        #expect(cover.rows == 1..<2)
        // Edges a hair off a tile boundary (float noise below 1e-9) do not pull in a neighbour.
        let noisy = TileCover(pyramid: flat, level: 11,
                              imageRect: Rect(x: 100 - 1e-11, y: 100 + 1e-11, width: 100 + 2e-11, height: 100 - 2e-11))
        #expect(noisy.columns == 1..<2)
        #expect(noisy.rows == 1..<2)
    }

    @Test func coverIsClampedToTheLevel() {
        let cover = TileCover(pyramid: pyramid, level: 12, imageRect: Rect(x: -500, y: 1900, width: 10000, height: 10000))
        #expect(cover.levelRect == PixelRect(x: 0, y: 1900, width: 4096, height: 148))
        #expect(cover.columns == 0..<17)
        #expect(cover.rows == 7..<9)
    }

    @Test func aSliverStillNeedsItsPixel() {
        let cover = TileCover(pyramid: pyramid, level: 12, imageRect: Rect(x: 508, y: 2048, width: 1e-12, height: 0))
        #expect(cover.levelRect == PixelRect(x: 508, y: 2047, width: 1, height: 1))
        #expect(cover.columns == 2..<3)
        #expect(cover.rows == 8..<9)
    }

    @Test func tilesAreListedNearestTheCentreFirst() {
        let cover = TileCover(pyramid: pyramid, level: 11, imageRect: Rect(x: 200, y: 100, width: 2048, height: 1536))
        // Viewport centre (1224, 868) in image pixels = (612, 434) at level 11: in cell (2, 1).
        let order = cover.addresses(nearestTo: Point(x: 1224, y: 868), in: pyramid)
        #expect(order.count == 20)
        #expect(Set(order).count == 20)
        #expect(order.prefix(3) == [
            TileAddress(level: 11, column: 2, row: 1),
            TileAddress(level: 11, column: 2, row: 2),
            TileAddress(level: 11, column: 1, row: 1),
        ])
        #expect(order.last == TileAddress(level: 11, column: 4, row: 3))
    }

    @Test func tiesAreBrokenByRowThenColumn() {
        let square = Pyramid(width: 508, height: 508)  // level 9: 2 x 2 tiles of 254
        let cover = TileCover(pyramid: square, level: 9, imageRect: Rect(x: 0, y: 0, width: 508, height: 508))
        let order = cover.addresses(nearestTo: Point(x: 254, y: 254), in: square)
        #expect(order.map { [$0.column, $0.row] } == [[0, 0], [1, 0], [0, 1], [1, 1]])
    }

    @Test func framesIncludeTheOverlapInContentPoints() {
        // Level 11 at zoomScale 0.5: zoomScale / s(L) = 1, frames are level pixels.
        let inner = Tile(TileAddress(level: 11, column: 2, row: 1), in: pyramid, zoomScale: 0.5)
        #expect(inner.frame == Rect(x: 507, y: 253, width: 256, height: 256))
        let corner = Tile(TileAddress(level: 11, column: 0, row: 0), in: pyramid, zoomScale: 0.5)
        #expect(corner.frame == Rect(x: 0, y: 0, width: 255, height: 255))
        // The last column is 2048 - 8 * 254 = 16 pixels wide, plus the overlap on its left.
        let last = Tile(TileAddress(level: 11, column: 8, row: 4), in: pyramid, zoomScale: 0.5)
        #expect(last.frame == Rect(x: 2031, y: 1015, width: 17, height: 9))
        // At zoomScale 0.75 on level 11 every coordinate is multiplied by 1.5.
        let scaled = Tile(TileAddress(level: 11, column: 2, row: 1), in: pyramid, zoomScale: 0.75)
        #expect(scaled.frame == Rect(x: 760.5, y: 379.5, width: 384, height: 384))
    }

    @Test func framesOfRoundedUpLevelsMayPassTheContentEdgeByLessThanOneLevelPixel() {
        // 6000 wide: level 8 is ceil(6000 / 32) = 188 wide, which is 6016 image pixels.
        let photo = Pyramid(width: 6000, height: 4000)
        let tile = Tile(TileAddress(level: 8, column: 0, row: 0), in: photo, zoomScale: 1)
        #expect(tile.frame == Rect(x: 0, y: 0, width: 188 * 32, height: 125 * 32))
    }
}
