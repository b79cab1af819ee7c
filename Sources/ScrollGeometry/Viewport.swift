/// Everything a client needs to draw its scroll view over one image: rules 1-10 applied to a request.
public struct Viewport: Hashable, Sendable {
    public let pyramid: Pyramid
    /// The scroll view as requested, after the zoom (if any) set its zoomScale and contentOffset.
    public let scrollView: ScrollView
    /// Rules 1-5.
    public let state: ScrollState
    /// Rules 6-8.
    public let choice: LevelChoice
    /// Rule 9: empty for `low`, otherwise the cover of the visibleRect, nearest the viewport centre first.
    public let tileAddresses: [TileAddress]
    /// `nil` unless asked for; see `Prefetch`.
    public let prefetch: [Tile]?
    /// Rule 9's cover of the visibleRect at `level`, all of which `tileAddresses` lists; `nil` for `low`.
    public let cover: TileCover?

    /// Rules 9-10: `tileAddresses` with their frames, computed on each read. Not up front: the default answer
    /// gives frames once per column and row, and framing a hundred tiles it never read cost about 5,000 of its
    /// 165,000 instructions.
    public var tiles: [Tile] {
        guard let cover, !tileAddresses.isEmpty else { return [] }
        let frames = TileFrames(pyramid: pyramid, level: cover.level, columns: cover.columns, rows: cover.rows,
                                zoomScale: state.zoomScale)
        return tileAddresses.map { frames.tile(column: $0.column, row: $0.row) }
    }

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
            let cover = TileCover(pyramid: pyramid, level: level, imageRect: state.visibleRect)
            self.cover = cover
            tileAddresses = cover.addresses(nearestTo: state.viewportCentre, in: pyramid)
        } else {
            cover = nil
            tileAddresses = []
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
