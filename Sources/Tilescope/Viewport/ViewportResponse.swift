import HTTPServer  // MallocBuffer only
import ScrollGeometry

/// The viewport answer of issue 3: what the client draws, where, and at which zoom.
///
/// Build it from the computed `Viewport`, then send `json` (keys in the documented order, written without
/// Foundation's encoder, which is several times slower on a hundred tiles). The tests check it against
/// an `Encodable` oracle with the same keys and values; there is one production path.
public struct ViewportResponse: Hashable, Sendable {
    /// The image as the geometry saw it.
    public struct Image: Hashable, Sendable {
        public let id: String
        public let width: Int
        public let height: Int
        public let tileSize: Int
        public let overlap: Int
        public let maxLevel: Int
    }

    /// The whole-image preview: the pyramid level P of rule 7.
    public struct Preview: Hashable, Sendable {
        public let url: String
        public let width: Int
        public let height: Int
    }

    /// How the answer lists its tiles (docs/viewport-api.md).
    public enum TileListing: Hashable, Sendable {
        /// `[level, column, row]` per tile, and each level's column and row frames once under `frames`: the default.
        case grid
        /// Every tile an object with its frame (`tileFrames=1`): the answer before `frames`.
        case objects
        /// Every tile an object with its URL and frame, and no `tileURL` (`tileURLs=1`): the answer before the template.
        case objectsWithURLs

        public init(tileURLs: Bool, tileFrames: Bool) {
            self = tileURLs ? .objectsWithURLs : tileFrames ? .objects : .grid
        }
    }

    /// One tile to draw (or to prefetch): its address, its frame in content points (rule 10) and, when the
    /// request asked for `tileURLs`, its URL.
    public struct TileJSON: Hashable, Sendable {
        public let level: Int
        public let column: Int
        public let row: Int
        /// `nil` unless the request asked for `tileURLs`: the answer's `tileURL` template spells every one.
        public let url: String?
        public let frame: Rect
    }

    public let image: Image
    public let zoomScale: Double
    public let minimumZoomScale: Double
    public let maximumZoomScale: Double
    public let contentSize: Size
    public let contentOffset: Point
    public let visibleRect: Rect
    /// `"low"` (draw the preview) or `"high"` (draw `tiles`).
    public let resolution: String
    public let threshold: Double
    /// `null` when `resolution` is `"low"`.
    public let level: Int?
    public var preview: Preview {
        Preview(url: urls.preview, width: geometry.previewSize.width, height: geometry.previewSize.height)
    }
    /// The tile URL template (`urls.tiles` of the image JSON, `{level}`, `{col}` and `{row}` left to fill in);
    /// `nil` when the request asked for `tileURLs`, whose tiles carry their own URL instead.
    public var tileURL: String? { listing == .objectsWithURLs ? nil : urls.tiles }
    /// The tiles to draw, nearest the viewport centre first.
    public var tiles: [TileJSON] { geometry.tiles.map(json) }
    /// Present only when the request asked for `prefetch`.
    public var prefetch: [TileJSON]? { geometry.prefetch?.map(json) }

    // The geometry's tiles, turned into URLs only while writing: building a string per tile up front
    // would cost more than the rest of the answer. Framed only for the listings that frame each tile.
    private let geometry: Viewport
    private let urls: PyramidURLs
    public let listing: TileListing

    public init(imageID: String, viewport: Viewport, urls: PyramidURLs, listing: TileListing = .grid) {
        let pyramid = viewport.pyramid
        image = Image(id: imageID, width: pyramid.width, height: pyramid.height, tileSize: pyramid.tileSize,
                      overlap: pyramid.overlap, maxLevel: pyramid.maxLevel)
        zoomScale = viewport.zoomScale
        minimumZoomScale = viewport.minimumZoomScale
        maximumZoomScale = viewport.maximumZoomScale
        contentSize = viewport.contentSize
        contentOffset = viewport.contentOffset
        visibleRect = viewport.visibleRect
        resolution = viewport.resolution.name
        threshold = viewport.threshold
        level = viewport.level
        geometry = viewport
        self.urls = urls
        self.listing = listing
    }

    private func json(_ tile: Tile) -> TileJSON {
        TileJSON(level: tile.address.level, column: tile.address.column, row: tile.address.row,
                 url: listing == .objectsWithURLs ? urls.tile(tile.address) : nil, frame: tile.frame)
    }

    /// The answer as UTF-8 JSON, keys in the order the README documents.
    public var json: [UInt8] { written().bytes }

    /// The same bytes in a malloc'd buffer whose ownership passes to the caller (the HTTP layer hands
    /// it to libmicrohttpd without a copy).
    public func jsonBuffer() -> MallocBuffer { written().buffer() }

    private func written() -> ViewportJSON {
        // Bytes a tile: about 185 as an object with its URL, 115 without, 11 in the grid listing (a 1280x800 @2x
        // answer: ~23 KB, ~14 KB, ~3 KB).
        let perTile = switch listing { case .grid: 16; case .objects: 128; case .objectsWithURLs: 192 }
        let drawnCount = geometry.tileAddresses.count
        let prefetched = geometry.prefetch
        var out = ViewportJSON(capacity: 1024 + perTile * (drawnCount + (prefetched?.count ?? 0)))
        out.beginObject()
        out.beginObject("image")
        out.field("id", image.id)
        out.field("width", image.width)
        out.field("height", image.height)
        out.field("tileSize", image.tileSize)
        out.field("overlap", image.overlap)
        out.field("maxLevel", image.maxLevel)
        out.endObject()
        out.field("zoomScale", zoomScale)
        out.field("minimumZoomScale", minimumZoomScale)
        out.field("maximumZoomScale", maximumZoomScale)
        out.beginObject("contentSize")
        out.field("width", contentSize.width)
        out.field("height", contentSize.height)
        out.endObject()
        out.beginObject("contentOffset")
        out.field("x", contentOffset.x)
        out.field("y", contentOffset.y)
        out.endObject()
        out.beginObject("visibleRect")
        Self.write(visibleRect, to: &out)
        out.endObject()
        out.field("resolution", resolution)
        out.field("threshold", threshold)
        out.field("level", level)
        out.beginObject("preview")
        out.field("url", url: PyramidURLs.previewLayout, urls)
        out.field("width", geometry.previewSize.width)
        out.field("height", geometry.previewSize.height)
        out.endObject()
        if listing != .objectsWithURLs {
            out.field("tileURL", url: PyramidURLs.tilesLayout, urls)
        }
        if listing == .grid {
            let drawn = geometry.tileAddresses, prefetched = prefetched?.map(\.address)
            let grid = TileGridJSON(cover: geometry.cover, prefetched: prefetched)
            grid.write(drawn, key: "tiles", to: &out)
            if let prefetched { grid.write(prefetched, key: "prefetch", to: &out) }
            grid.writeFrames(pyramid: geometry.pyramid, zoomScale: zoomScale, to: &out)
        } else {
            let drawn = geometry.tiles
            var list = TileListJSON(urls: listing == .objectsWithURLs ? (urls.tilePrefixBytes, urls.tileSuffixBytes) : nil,
                                    drawn: drawn, prefetched: prefetched)
            list.write(drawn, key: "tiles", to: &out)
            if let prefetched { list.write(prefetched, key: "prefetch", to: &out) }
        }
        out.endObject()
        return out
    }

    private static func write(_ rect: Rect, to out: inout ViewportJSON) {
        out.field("x", rect.x)
        out.field("y", rect.y)
        out.field("width", rect.width)
        out.field("height", rect.height)
    }
}
