import ScrollGeometry

/// The image information document (`info.json`) of IIIF Image API 3.0.
struct IIIFInfo: Encodable {
    struct Size: Encodable { var width: Int; var height: Int }
    struct Tiles: Encodable { var width: Int; var height: Int; var scaleFactors: [Int] }

    var context = IIIFInfo.contextURI
    var id: String
    var type = "ImageService3"
    var `protocol` = "http://iiif.io/api/image"
    var profile = "level2"
    var width: Int
    var height: Int
    var maxWidth = IIIFFormat.declaredMaxSide
    var maxHeight = IIIFFormat.declaredMaxSide
    var maxArea: Int
    var sizes: [Size]
    var tiles: [Tiles]
    var preferredFormats = IIIFFormat.preferred.map(\.rawValue)
    var extraFormats = IIIFFormat.extra.map(\.rawValue)
    var extraQualities = ["color", "gray", "bitonal"]
    var extraFeatures = ["canonicalLinkHeader", "mirroring", "profileLinkHeader", "rotationArbitrary", "sizeUpscaling"]
    /// The physical-dimensions service when the source says how large a pixel is, and a private image's IIIF
    /// Authorization Flow 2.0 probe service (`withAuth`); absent when neither.
    var service: [IIIFInfoService]?

    static let contextURI = "http://iiif.io/api/image/3/context.json"
    static let profileURI = "http://iiif.io/api/image/3/level2.json"

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, `protocol`, profile, width, height, maxWidth, maxHeight, maxArea, sizes, tiles
        case preferredFormats, extraFormats, extraQualities, extraFeatures, service
    }

    /// `sizes` are the pyramid's whole levels (cheapest to serve) within `maxArea` and with no side
    /// longer than every preferred format stores (`IIIFFormat.listedMaxSide`); `maxWidth` and
    /// `maxHeight` bound `max` as the spec says (`IIIFSize.fit`), for the formats whose encoders
    /// have a limit of their own; `tiles` has one scale factor per level, so every IIIF tile is one
    /// stored tile: of the Deep Zoom pyramid, or of the source's own grid (`tileSize`) for a source served
    /// directly, whose aligned tiles are then sent as stored (`StoredSourceTiles`).
    init(id: String, pyramid: Pyramid, maxArea: Int, micronsPerPixel: MicronsPerPixel? = nil, tileSize: PixelSize? = nil) {
        self.id = id
        service = IIIFPhysicalDimensions(micronsPerPixel).map { [.physicalDimensions($0)] }
        width = pyramid.width
        height = pyramid.height
        self.maxArea = maxArea
        sizes = pyramid.levels.map { pyramid.size(ofLevel: $0) }
            .filter { $0.width * $0.height <= maxArea && max($0.width, $0.height) <= IIIFFormat.listedMaxSide }
            .map { Size(width: $0.width, height: $0.height) }
        tiles = [Tiles(width: tileSize?.width ?? pyramid.tileSize, height: tileSize?.height ?? pyramid.tileSize,
                       scaleFactors: pyramid.levels.map { 1 << (pyramid.maxLevel - $0) }.reversed())]
    }
}
