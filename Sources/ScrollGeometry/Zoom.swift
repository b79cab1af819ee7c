/// A zoom the client asks for: UIScrollView's zoomToRect, or the photo viewer's double-tap.
///
/// Both are expressed in image pixels. Applying one gives a new `ScrollView` whose zoomScale and contentOffset
/// put the target where it belongs; `ScrollState` then clamps it (rules 3 and 4) like any other request.
public enum Zoom: Hashable, Sendable {
    /// `zoomRect=x,y,w,h`: zoomScale `min(aw / w, ah / h)` clamped, the rectangle's centre at the centre of the
    /// available area. `width` and `height` must be > 0.
    case toRect(Rect)
    /// `tap=x,y&factor=F[&tapDirection=out]`: zoomScale `clamp(zoomScale x F)` (in) or `clamp(zoomScale / F)`
    /// (out), then zoom to the rectangle of size `available / newScale` centred on the tap, which amounts to
    /// centring the tap. `factor` must be > 0.
    case tap(Point, factor: Double, direction: TapDirection = .in)

    /// The classic double-tap factor. The two-finger tap divides by the same factor (`tapDirection=out`):
    /// `x / 1.5` is not always `x * 0.6666...` to the last bit, and a client that divides must get the same number.
    public static let defaultTapFactor = 1.5

    public func applied(to scrollView: ScrollView, imageSize: Size) -> ScrollView {
        let range = ZoomScaleRange(imageSize: imageSize, scrollView: scrollView)
        let available = scrollView.availableSize
        switch self {
        case .toRect(let rect):
            let zoomScale = range.clamp(min(available.width / rect.width, available.height / rect.height))
            return Self.centre(rect.center, at: zoomScale, in: scrollView)
        case .tap(let point, let factor, let direction):
            let current = range.clamp(scrollView.zoomScale ?? range.minimum)
            let wanted = direction == .in ? current * factor : current / factor
            // The rectangle of size available / newScale around the tap zooms back to newScale itself
            // (after clamping, which it already satisfies), so only its centre matters. Going through the
            // rectangle would overflow for extreme zoom limits.
            return Self.centre(point, at: range.clamp(wanted), in: scrollView)
        }
    }

    /// The scroll view at `zoomScale` with the image point `centre` at the centre of the available area.
    static func centre(_ centre: Point, at zoomScale: Double, in scrollView: ScrollView) -> ScrollView {
        let available = scrollView.availableSize
        let inset = scrollView.contentInset
        var zoomed = scrollView
        zoomed.zoomScale = zoomScale
        zoomed.contentOffset = Point(x: centre.x * zoomScale - inset.left - available.width / 2,
                                     y: centre.y * zoomScale - inset.top - available.height / 2)
        return zoomed
    }
}
