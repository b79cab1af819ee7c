import Testing
@testable import ScrollGeometry

/// The viewport's tiles come in the published order and carry exactly the frames rule 10 gives each tile
/// on its own (framed on demand from `tileAddresses`).
@Suite struct TileFramesTests {
    @Test func viewportFramesAreTheFramesOfEachTileOnItsOwn() {
        var tiles = 0
        for scene in RandomScene.all(2000, base: 0xF4A3_0000) {
            let viewport = Viewport(pyramid: scene.pyramid, scrollView: scene.scrollView)
            let alone = viewport.tileAddresses.map { Tile($0, in: scene.pyramid, zoomScale: viewport.zoomScale) }
            // `tiles` frames `tileAddresses`, the same tiles in the same order.
            #expect(viewport.tiles.map(\.address) == viewport.tileAddresses, "\(scene)")
            if let level = viewport.level {  // and in the published order
                let cover = TileCover(pyramid: scene.pyramid, level: level, imageRect: viewport.visibleRect)
                let expected = TileOrderTests.referenceOrder(TileOrderTests.rowMajor(cover), pyramid: scene.pyramid,
                                                             level: level, centre: viewport.state.viewportCentre)
                let ordered = viewport.tiles.map(\.address) == expected
                #expect(ordered, "\(scene)")
            }
            // Bit for bit: `==` on Double would let -0 pass for 0.
            let same = viewport.tiles.map(\.address) == alone.map(\.address)
                && zip(viewport.tiles, alone).allSatisfy { a, b in
                    [a.frame.x, a.frame.y, a.frame.width, a.frame.height].map(\.bitPattern)
                        == [b.frame.x, b.frame.y, b.frame.width, b.frame.height].map(\.bitPattern)
                }
            #expect(same, "\(scene)")
            tiles += viewport.tiles.count
        }
        #expect(tiles > 10_000)
    }
}
