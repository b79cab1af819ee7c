/// The scroll view after it settles (rules 1-5): clamped zoomScale, contentSize, clamped contentOffset, visibleRect.
public struct ScrollState: Hashable, Sendable {
    public let zoomScaleRange: ZoomScaleRange
    /// Rule 3: the requested zoomScale (default: the minimum) clamped into `zoomScaleRange`.
    public let zoomScale: Double
    /// Rule 3: `(W x zoomScale, H x zoomScale)`, in points.
    public let contentSize: Size
    /// Rule 4: the requested offset clamped into `ContentOffsetRange`, or centred.
    public let contentOffset: Point
    /// Rule 5: `(offsetX, offsetY, width, height) ∩ (0, 0, contentSize)`, divided by zoomScale: image pixels.
    public let visibleRect: Rect
    /// The viewport's centre in image pixels: the point tiles are sorted around.
    public let viewportCentre: Point

    public init(imageSize: Size, scrollView: ScrollView) {
        let range = ZoomScaleRange(imageSize: imageSize, scrollView: scrollView)
        let zoomScale = range.clamp(scrollView.zoomScale ?? range.minimum)
        let contentSize = imageSize.scaled(by: zoomScale)
        let offsets = ContentOffsetRange(contentSize: contentSize, boundsSize: scrollView.boundsSize,
                                         contentInset: scrollView.contentInset)
        let offset = offsets.clamp(scrollView.contentOffset)
        let viewport = Rect(origin: offset, size: scrollView.boundsSize)
        let content = Rect(origin: .zero, size: contentSize)

        self.zoomScaleRange = range
        self.zoomScale = zoomScale
        self.contentSize = contentSize
        self.contentOffset = offset
        // Divided, not multiplied by `1 / zoomScale`: one rounding instead of two, so that the whole image reads
        // exactly W x H (it read 2048.9999999999995 for 2049) and the browser client gets the same bits.
        let visible = viewport.intersection(content)
        self.visibleRect = Rect(x: visible.x / zoomScale, y: visible.y / zoomScale,
                                width: visible.width / zoomScale, height: visible.height / zoomScale)
        self.viewportCentre = Point(x: viewport.center.x / zoomScale, y: viewport.center.y / zoomScale)
    }
}
