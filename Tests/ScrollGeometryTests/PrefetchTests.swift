import Testing
@testable import ScrollGeometry

/// The prefetch ring and the next level.
@Suite struct PrefetchTests {
    let pyramid = Pyramid(width: 4096, height: 2048)  // level 11: 9 x 5 tiles; level 12: 17 x 9

    @Test func highResolutionPrefetchesTheRingThenTheNextLevel() {
        let view = ScrollView(boundsSize: Size(width: 1024, height: 768), zoomScale: 0.5, contentOffset: Point(x: 100, y: 50))
        let viewport = Viewport(pyramid: pyramid, scrollView: view, prefetch: true)
        #expect(viewport.level == 11)
        #expect(viewport.tiles.count == 20)  // columns 0..<5, rows 0..<4
        let prefetch = viewport.prefetch ?? []
        let ring = prefetch.filter { $0.address.level == 11 }
        let next = prefetch.filter { $0.address.level == 12 }
        // The ring is column 5 (rows 0...4) and row 4 (columns 0...4): the grid stops it at the top and left.
        #expect(Set(ring.map { [$0.address.column, $0.address.row] })
            == Set((0...4).map { [5, $0] } + (0...4).map { [$0, 4] }))
        #expect(ring.count == 10)
        // Level 12 pixels 200..<2248 x 100..<1636: columns 0..<9, rows 0..<7.
        #expect(next.count == 63)
        #expect(prefetch.prefix(10).allSatisfy { $0.address.level == 11 })
        #expect(Set(prefetch.map(\.address)).isDisjoint(with: viewport.tiles.map(\.address)))
    }

    @Test func ringInTheMiddleOfALevelIsComplete() {
        let cover = TileCover(pyramid: pyramid, level: 12, imageRect: Rect(x: 1000, y: 1000, width: 500, height: 10))
        #expect(cover.columns == 3..<6 && cover.rows == 3..<4)
        let ring = Prefetch.ring(around: cover, pyramid: pyramid, centre: Point(x: 1250, y: 1005))
        #expect(ring.count == 5 * 3 - 3)
        #expect(Set(ring.map(\.column)) == [2, 3, 4, 5, 6])
        #expect(Set(ring.map(\.row)) == [2, 3, 4])
    }

    @Test func lowResolutionPrefetchesTheFirstTileLevel() {
        let view = ScrollView(boundsSize: Size(width: 1024, height: 768))
        let viewport = Viewport(pyramid: pyramid, scrollView: view, prefetch: true)
        #expect(viewport.resolution == .low)
        #expect(viewport.tiles.isEmpty)
        #expect(viewport.prefetch?.count == 45)
        #expect(viewport.prefetch?.allSatisfy { $0.address.level == 11 } == true)
    }

    @Test func noPrefetchUnlessAsked() {
        let viewport = Viewport(pyramid: pyramid, scrollView: ScrollView(boundsSize: Size(width: 100, height: 100)))
        #expect(viewport.prefetch == nil)
    }

    @Test func maxLevelHasNoNextLevel() {
        let view = ScrollView(boundsSize: Size(width: 300, height: 300), zoomScale: 2, contentOffset: Point(x: 4000, y: 2000))
        let viewport = Viewport(pyramid: pyramid, scrollView: view, prefetch: true)
        #expect(viewport.level == 12)
        #expect(viewport.prefetch?.allSatisfy { $0.address.level == 12 } == true)
    }
}
