/// Everything a client needs to draw its scroll view over one image: rules 1-10 applied to a request.
public struct Viewport: Hashable, Sendable {
    public let pyramid: Pyramid
    /// The scroll view as requested, after the zoom (if any) set its zoomScale and contentOffset.
    public let scrollView: ScrollView
    /// Rules 1-5.
    public let state: ScrollState
    /// Rules 6-8.
    public let choice: LevelChoice
    /// Rules 9-10: empty for `low`, otherwise the cover of the visibleRect, nearest the viewport centre first.
    public let tiles: [Tile]
    /// `nil` unless asked for; see `Prefetch`.
    public let prefetch: [Tile]?

    public init(pyramid: Pyramid, scrollView: ScrollView, zoom: Zoom? = nil, prefetch: Bool = false) {
        let imageSize = Size(width: Double(pyramid.width), height: Double(pyramid.height))
        let scrollView = zoom?.applied(to: scrollView, imageSize: imageSize) ?? scrollView
        let state = ScrollState(imageSize: imageSize, scrollView: scrollView)
        let choice = LevelChoice(pyramid: pyramid, zoomScale: state.zoomScale, scale: scrollView.scale)
        let draw = { (address: TileAddress) in Tile(address, in: pyramid, zoomScale: state.zoomScale) }

        self.pyramid = pyramid
        self.scrollView = scrollView
        self.state = state
        self.choice = choice
        if case .high(let level) = choice.resolution {
            // The cover's tiles nearest first (as `TileCover.addresses(nearestTo:in:)`), framed as they come.
            let cover = TileCover(pyramid: pyramid, level: level, imageRect: state.visibleRect)
            let frames = TileFrames(pyramid: pyramid, level: level, columns: cover.columns, rows: cover.rows,
                                    zoomScale: state.zoomScale)
            tiles = TileOrder(pyramid: pyramid, level: level, centre: state.viewportCentre)
                .sorted(columns: cover.columns, rows: cover.rows) { frames.tile(column: $0, row: $1) }
        } else {
            tiles = []
        }
        self.prefetch = prefetch
            ? Prefetch.addresses(pyramid: pyramid, choice: choice, visibleRect: state.visibleRect,
                                 centre: state.viewportCentre).map(draw)
            : nil
    }

    public var zoomScale: Double { state.zoomScale }
    public var minimumZoomScale: Double { state.zoomScaleRange.minimum }
    public var maximumZoomScale: Double { state.zoomScaleRange.maximum }
    public var contentSize: Size { state.contentSize }
    public var contentOffset: Point { state.contentOffset }
    public var visibleRect: Rect { state.visibleRect }
    public var resolution: Resolution { choice.resolution }
    public var threshold: Double { choice.threshold }
    public var level: Int? { choice.resolution.level }
    public var previewLevel: Int { choice.previewLevel }
    public var previewSize: PixelSize { pyramid.size(ofLevel: choice.previewLevel) }
}
