/// The client's scroll view as it describes itself: bounds, screen scale, zoom, offset, insets and zoom limits.
///
/// Everything is in points except `scale` (device pixels per point). `zoomScale` and the limits are optional:
/// `nil` means "the default of rule 2/3". Nothing here is clamped yet; `ScrollState` does that.
public struct ScrollView: Hashable, Sendable {
    /// The viewport (`width`, `height`): the scroll view's bounds size.
    public var boundsSize: Size
    public var scale: Double
    public var zoomScale: Double?
    public var contentOffset: Point
    public var contentInset: Insets
    public var minimumZoomScale: Double?
    public var maximumZoomScale: Double?

    /// Preconditions, checked by the request parser rather than here: sizes finite and > 0, scale finite and > 0,
    /// insets finite and leaving an available area > 0, limits finite and > 0 with minimum <= maximum.
    public init(
        boundsSize: Size,
        scale: Double = 1,
        zoomScale: Double? = nil,
        contentOffset: Point = .zero,
        contentInset: Insets = .zero,
        minimumZoomScale: Double? = nil,
        maximumZoomScale: Double? = nil
    ) {
        self.boundsSize = boundsSize
        self.scale = scale
        self.zoomScale = zoomScale
        self.contentOffset = contentOffset
        self.contentInset = contentInset
        self.minimumZoomScale = minimumZoomScale
        self.maximumZoomScale = maximumZoomScale
    }

    /// Rule 1: `aw = width - left - right`, `ah = height - top - bottom`.
    public var availableSize: Size {
        Size(width: boundsSize.width - contentInset.horizontal, height: boundsSize.height - contentInset.vertical)
    }
}
