/// The zoom limits of rule 2 and the clamp of rule 3.
public struct ZoomScaleRange: Hashable, Sendable {
    public let minimum: Double
    public let maximum: Double

    public init(minimum: Double, maximum: Double) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
    }

    /// Rule 2. `minimumZoomScale` defaults to aspect fit, `min(aw / W, ah / H)`; `maximumZoomScale` defaults to
    /// `max(minimumZoomScale, 2 / scale)`. An explicit maximum wins over the default minimum: with only a
    /// maximum given and aspect fit above it, the minimum becomes that maximum (the range is never inverted).
    public init(imageSize: Size, scrollView: ScrollView) {
        let available = scrollView.availableSize
        let aspectFit = min(available.width / imageSize.width, available.height / imageSize.height)
        var minimum = scrollView.minimumZoomScale ?? aspectFit
        if scrollView.minimumZoomScale == nil, let maximum = scrollView.maximumZoomScale {
            minimum = min(minimum, maximum)
        }
        let maximum = scrollView.maximumZoomScale ?? max(minimum, 2 / scrollView.scale)
        self.init(minimum: minimum, maximum: maximum)
    }

    /// Rule 3: as a scroll view does after a pinch.
    public func clamp(_ zoomScale: Double) -> Double {
        min(max(zoomScale, minimum), maximum)
    }
}
