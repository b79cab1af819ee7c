import HTTPServer
import ScrollGeometry

/// What a client asks of a derived-format route, once the route has found the image, checked the tile is
/// one of its published pyramid's, and read what the request says: which picture (a tile, the preview), in
/// which format, whether the client takes JPEG XL, how long the answer may be cached, and which tags the
/// client holds already.
struct TileQuestion: Sendable {
    enum Picture: Sendable, Equatable {
        case tile(level: Int, column: Int, row: Int)
        case preview
        /// A tile of a level between two Deep Zoom levels, made from the finer one's stored tiles.
        case between(BetweenLevel, column: Int, row: Int)
    }

    let record: ImageRecord
    let manifest: PyramidManifest
    let picture: Picture
    /// `.webp` or `.avif` for a tile; `.avif` for the preview.
    let format: DeepZoomTileFormat
    /// Whether `Accept` names `image/jxl` (`JPEGXLAnswers.accepted`), read once per request.
    let acceptsJXL: Bool
    /// The `Cache-Control` of the final answer; a stand-in has its own (`InterimFormatTiles`).
    let cacheControl: String
    /// GET may set an encoding going; HEAD never does.
    let mayStartWork: Bool
    /// Whether the client's `If-None-Match` names this tag (or is `*`): it holds those bytes already.
    let holds: @Sendable (_ etag: String) -> Bool

    var version: String { record.version }

    /// What making this picture costs in the fair queue's units, pixels decoded plus pixels encoded: a tile
    /// (254 px and its overlap) decoded and encoded once each; the preview (at most 1,024 px a side) likewise.
    var workPixels: Int {
        switch picture {
        case .tile: return 2 * 256 * 256
        case .preview: return 2 * 1024 * 1024
        // The finer level's pixels it reads (up to 1.6 x 1.6 tiles' worth), then the tile encoded.
        case .between: return 4 * 256 * 256
        }
    }
}
