import Testing
@testable import ScrollGeometry

/// Rules 1-10 end to end on one request worked by hand.
@Suite struct ViewportTests {
    @Test func workedExample() {
        let pyramid = Pyramid(width: 4096, height: 2048)
        let view = ScrollView(boundsSize: Size(width: 1024, height: 768), scale: 1, zoomScale: 0.5,
                              contentOffset: Point(x: 100, y: 50))
        let viewport = Viewport(pyramid: pyramid, scrollView: view)
        #expect(viewport.zoomScale == 0.5)
        #expect(viewport.minimumZoomScale == 0.25)
        #expect(viewport.maximumZoomScale == 2)
        #expect(viewport.contentSize == Size(width: 2048, height: 1024))
        #expect(viewport.contentOffset == Point(x: 100, y: 50))
        #expect(viewport.visibleRect == Rect(x: 200, y: 100, width: 2048, height: 1536))
        #expect(viewport.resolution == .high(level: 11))
        #expect(viewport.threshold == 0.25)
        #expect(viewport.previewLevel == 10)
        #expect(viewport.previewSize == PixelSize(width: 1024, height: 512))
        #expect(viewport.tiles.count == 20)
        #expect(viewport.tiles.first == Tile(TileAddress(level: 11, column: 2, row: 1), in: pyramid, zoomScale: 0.5))
        #expect(viewport.tiles.first?.frame == Rect(x: 507, y: 253, width: 256, height: 256))
    }

    @Test func atTheThresholdThePreviewIsEnough() {
        let pyramid = Pyramid(width: 4096, height: 2048)
        var view = ScrollView(boundsSize: Size(width: 1024, height: 768), scale: 2, zoomScale: 0.125, minimumZoomScale: 0.01)
        let low = Viewport(pyramid: pyramid, scrollView: view)
        #expect(low.threshold == 0.125)
        #expect(low.resolution == .low)
        #expect(low.level == nil)
        #expect(low.tiles.isEmpty)
        view.zoomScale = 0.126
        let high = Viewport(pyramid: pyramid, scrollView: view)
        #expect(high.resolution == .high(level: 11))
        #expect(!high.tiles.isEmpty)
    }

    @Test func zoomIsAppliedBeforeTheRules() {
        let pyramid = Pyramid(width: 4096, height: 2048)
        let view = ScrollView(boundsSize: Size(width: 1024, height: 768))
        let viewport = Viewport(pyramid: pyramid, scrollView: view, zoom: .toRect(Rect(x: 1000, y: 500, width: 1024, height: 256)))
        #expect(viewport.zoomScale == 1)
        #expect(viewport.scrollView.zoomScale == 1)
        #expect(viewport.visibleRect == Rect(x: 1000, y: 244, width: 1024, height: 768))
        #expect(viewport.level == 12)
    }
}
