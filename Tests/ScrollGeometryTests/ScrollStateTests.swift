import Testing
@testable import ScrollGeometry

/// Rules 1-5 on worked examples computed by hand.
@Suite struct ScrollStateTests {
    let image = Size(width: 4096, height: 2048)

    @Test func defaultZoomIsAspectFitAndMaximumIsTwoPointsPerPixelOfScreen() {
        let view = ScrollView(boundsSize: Size(width: 1024, height: 768))
        let state = ScrollState(imageSize: image, scrollView: view)
        #expect(state.zoomScaleRange == ZoomScaleRange(minimum: 0.25, maximum: 2))
        #expect(state.zoomScale == 0.25)
        #expect(state.contentSize == Size(width: 1024, height: 512))
        // Width fills the viewport; height is centred: -(768 - 512) / 2.
        #expect(state.contentOffset == Point(x: 0, y: -128))
        #expect(state.visibleRect == Rect(x: 0, y: 0, width: 4096, height: 2048))

        var retina = view
        retina.scale = 4
        #expect(ScrollState(imageSize: image, scrollView: retina).zoomScaleRange.maximum == 0.5)
    }

    @Test func maximumNeverFallsBelowTheMinimum() {
        // A tiny image: aspect fit is 10, above 2 / scale.
        let view = ScrollView(boundsSize: Size(width: 1000, height: 1000), scale: 2)
        let range = ZoomScaleRange(imageSize: Size(width: 100, height: 50), scrollView: view)
        #expect(range == ZoomScaleRange(minimum: 10, maximum: 10))
    }

    @Test func overridesReplaceTheDefaults() {
        var view = ScrollView(boundsSize: Size(width: 1024, height: 768), minimumZoomScale: 0.1, maximumZoomScale: 8)
        #expect(ZoomScaleRange(imageSize: image, scrollView: view) == ZoomScaleRange(minimum: 0.1, maximum: 8))
        view.maximumZoomScale = nil
        #expect(ZoomScaleRange(imageSize: image, scrollView: view) == ZoomScaleRange(minimum: 0.1, maximum: 2))
        // Only a maximum, below aspect fit (0.25): the explicit maximum wins, the range is [0.2, 0.2].
        view.minimumZoomScale = nil
        view.maximumZoomScale = 0.2
        #expect(ZoomScaleRange(imageSize: image, scrollView: view) == ZoomScaleRange(minimum: 0.2, maximum: 0.2))
    }

    @Test func zoomScaleIsClampedNotRejected() {
        var view = ScrollView(boundsSize: Size(width: 1024, height: 768), zoomScale: 50)
        #expect(ScrollState(imageSize: image, scrollView: view).zoomScale == 2)
        view.zoomScale = 0.001
        #expect(ScrollState(imageSize: image, scrollView: view).zoomScale == 0.25)
        view.zoomScale = 1e308
        #expect(ScrollState(imageSize: image, scrollView: view).zoomScale == 2)
    }

    @Test func offsetIsClampedIntoTheScrollableRange() {
        let view = ScrollView(boundsSize: Size(width: 1024, height: 768), zoomScale: 0.5,
                              contentOffset: Point(x: 100, y: 50))
        let state = ScrollState(imageSize: image, scrollView: view)
        #expect(state.contentSize == Size(width: 2048, height: 1024))
        #expect(state.contentOffset == Point(x: 100, y: 50))
        #expect(state.visibleRect == Rect(x: 200, y: 100, width: 2048, height: 1536))
        #expect(state.viewportCentre == Point(x: 1224, y: 868))

        var far = view
        far.contentOffset = Point(x: 5000, y: -300)
        let clamped = ScrollState(imageSize: image, scrollView: far)
        // x: 0 ... 2048 - 1024; y: 0 ... 1024 - 768.
        #expect(clamped.contentOffset == Point(x: 1024, y: 0))
        #expect(clamped.visibleRect == Rect(x: 2048, y: 0, width: 2048, height: 1536))
    }

    @Test func insetsShrinkTheAvailableAreaAndExtendTheRange() {
        let insets = Insets(top: 20, left: 10, bottom: 30, right: 50)
        var view = ScrollView(boundsSize: Size(width: 400, height: 300), scale: 2,
                              contentOffset: Point(x: 1000, y: 1000), contentInset: insets)
        #expect(view.availableSize == Size(width: 340, height: 250))
        let image = Size(width: 1000, height: 500)
        let fit = ScrollState(imageSize: image, scrollView: view)
        #expect(fit.zoomScale == 0.34)
        #expect(fit.zoomScaleRange.maximum == 1)
        // x: the range is the single point -10. y: content 170 < 250: centred at -20 - (250 - 170) / 2.
        #expect(approx(fit.contentOffset.x, -10))
        #expect(approx(fit.contentOffset.y, -60))
        #expect(approx(fit.visibleRect, Rect(x: 0, y: 0, width: 1000, height: 500)))

        view.zoomScale = 0.5
        let zoomed = ScrollState(imageSize: image, scrollView: view)
        // x: -10 ... 500 + 50 - 400 = 150; y: -20 ... 250 + 30 - 300 = -20.
        #expect(zoomed.contentOffset == Point(x: 150, y: -20))
        // (150, -20, 400, 300) ∩ (0, 0, 500, 250) = (150, 0, 350, 250), / 0.5.
        #expect(zoomed.visibleRect == Rect(x: 300, y: 0, width: 700, height: 500))

        view.contentOffset = Point(x: -1e300, y: -1e300)
        #expect(ScrollState(imageSize: image, scrollView: view).contentOffset == Point(x: -10, y: -20))
    }

    @Test func centringIgnoresTheRequestedOffset() {
        let view = ScrollView(boundsSize: Size(width: 500, height: 500),
                              contentOffset: Point(x: 123, y: -456), contentInset: Insets(top: 0, left: 100, bottom: 0, right: 0))
        // A 100 x 400 image at aspect fit (min(400 / 100, 500 / 400) = 1.25): content 125 x 500.
        let state = ScrollState(imageSize: Size(width: 100, height: 400), scrollView: view)
        #expect(state.zoomScale == 1.25)
        #expect(state.contentOffset == Point(x: -100 - (400 - 125) / 2, y: 0))
    }

    @Test func offsetRangeCollapsesOnlyWhenContentIsSmallerThanTheAvailableArea() {
        let range = ContentOffsetRange(contentSize: Size(width: 300, height: 100), boundsSize: Size(width: 200, height: 200),
                                       contentInset: Insets(top: 10, left: 20, bottom: 30, right: 40))
        #expect(range.x == -20 ... 140)
        #expect(!range.isCentredHorizontally)
        #expect(range.y == -10 - 30 ... -10 - 30)
        #expect(range.isCentredVertically)
        #expect(range.clamp(Point(x: 1e9, y: 0)) == Point(x: 140, y: -40))
    }
}
