import Testing
@testable import ScrollGeometry

/// zoomRect (UIScrollView's zoomToRect) and the double-tap zoom.
@Suite struct ZoomTests {
    let image = Size(width: 4096, height: 2048)
    let view = ScrollView(boundsSize: Size(width: 1024, height: 768), zoomScale: 0.5, contentOffset: Point(x: 100, y: 50))

    @Test func zoomToRectFitsTheRectAndCentresIt() {
        let zoomed = Zoom.toRect(Rect(x: 1000, y: 500, width: 400, height: 256)).applied(to: view, imageSize: image)
        let state = ScrollState(imageSize: image, scrollView: zoomed)
        // min(1024 / 400, 768 / 256) = 2.56, clamped to the maximum 2.
        #expect(state.zoomScale == 2)
        // Centre (1200, 628) x 2 minus half the available area.
        #expect(state.contentOffset == Point(x: 2400 - 512, y: 1256 - 384))
        #expect(state.visibleRect.center == Point(x: 1200, y: 628))
    }

    @Test func zoomToRectUnclampedMatchesTheRectOnItsLimitingAxis() {
        let zoomed = Zoom.toRect(Rect(x: 1000, y: 500, width: 1024, height: 256)).applied(to: view, imageSize: image)
        let state = ScrollState(imageSize: image, scrollView: zoomed)
        #expect(state.zoomScale == 1)
        #expect(state.visibleRect == Rect(x: 1000, y: 628 - 384, width: 1024, height: 768))
    }

    @Test func zoomToRectHonoursInsets() {
        var inset = view
        inset.contentInset = Insets(top: 100, left: 24, bottom: 68, right: 0)  // available 1000 x 600
        let zoomed = Zoom.toRect(Rect(x: 2000, y: 1000, width: 1000, height: 300)).applied(to: inset, imageSize: image)
        let state = ScrollState(imageSize: image, scrollView: zoomed)
        #expect(state.zoomScale == 1)
        // The rect's centre (2500, 1150) sits at the available area's centre (24 + 500, 100 + 300).
        #expect(state.contentOffset == Point(x: 2500 - 524, y: 1150 - 400))
    }

    @Test func zoomToRectNearTheEdgeIsClampedByRule4() {
        let zoomed = Zoom.toRect(Rect(x: 0, y: 0, width: 256, height: 192)).applied(to: view, imageSize: image)
        #expect(zoomed.contentOffset == Point(x: -256, y: -192))
        let state = ScrollState(imageSize: image, scrollView: zoomed)
        #expect(state.zoomScale == 2)
        #expect(state.contentOffset == .zero)
    }

    @Test func doubleTapZoomsByTheFactorAroundTheTap() {
        let tapped = Zoom.tap(Point(x: 1224, y: 868), factor: Zoom.defaultTapFactor).applied(to: view, imageSize: image)
        let state = ScrollState(imageSize: image, scrollView: tapped)
        #expect(state.zoomScale == 0.75)
        #expect(state.contentOffset == Point(x: 1224 * 0.75 - 512, y: 868 * 0.75 - 384))
        #expect(approx(state.visibleRect.center, Point(x: 1224, y: 868)))
    }

    @Test func twoFingerTapZoomsOutAndIsClamped() {
        let out = Zoom.tap(Point(x: 2048, y: 1024), factor: 0.6667).applied(to: view, imageSize: image)
        #expect(approx(ScrollState(imageSize: image, scrollView: out).zoomScale, 0.33335))
        var atMinimum = view
        atMinimum.zoomScale = nil
        let floor = Zoom.tap(Point(x: 2048, y: 1024), factor: 0.6667).applied(to: atMinimum, imageSize: image)
        #expect(ScrollState(imageSize: image, scrollView: floor).zoomScale == 0.25)
        var atMaximum = view
        atMaximum.zoomScale = 99
        let ceiling = Zoom.tap(Point(x: 10, y: 10), factor: 1.5).applied(to: atMaximum, imageSize: image)
        let state = ScrollState(imageSize: image, scrollView: ceiling)
        #expect(state.zoomScale == 2)
        #expect(state.contentOffset == .zero)
    }

    @Test func twoFingerTapDividesExactly() {
        // 0.48 / 1.5 is 0.32, but 0.48 x (1 / 1.5) is 0.31999999999999995: only a division matches the client.
        var at = view
        at.zoomScale = 0.48
        let out = Zoom.tap(Point(x: 2048, y: 1024), factor: 1.5, direction: .out).applied(to: at, imageSize: image)
        #expect(ScrollState(imageSize: image, scrollView: out).zoomScale == 0.32)
        #expect(0.48 * (1 / 1.5) != 0.32)
        let back = Zoom.tap(Point(x: 2048, y: 1024), factor: 1.5).applied(to: out, imageSize: image)
        #expect(ScrollState(imageSize: image, scrollView: back).zoomScale == 0.48)
    }

    @Test func tapWithExtremeLimitsStaysFinite() {
        var tiny = view
        tiny.minimumZoomScale = 1e-300
        tiny.maximumZoomScale = 1e-300
        let state = ScrollState(imageSize: image,
                                scrollView: Zoom.tap(Point(x: 5, y: 5), factor: 1.5).applied(to: tiny, imageSize: image))
        #expect(state.zoomScale == 1e-300)
        #expect(state.contentOffset.x.isFinite && state.contentOffset.y.isFinite)
        #expect(state.visibleRect.width.isFinite && state.visibleRect.width > 0)
    }
}
