import ScrollGeometry

/// The public URLs of one version of an image's pyramid: `.dzi`, tiles and preview, each with `?v={version}`.
///
/// The version in every URL makes them cacheable forever: a rebuilt pyramid gets new URLs. The id is
/// percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`), so any id yields a well-formed path.
///
/// It keeps the id and the version as given and spells a URL only when asked: the viewport answer writes its
/// two URLs straight into its JSON (`ViewportJSON.field(_:url:)`) from the pieces below, where building them
/// as byte arrays first was about 3,000 instructions of every answer.
public struct PyramidURLs: Hashable, Sendable {
    let imageID: String
    let version: String
    /// What goes before every URL: empty, or a signed URL's `/signed/{token}` (`Request.mountPath`), so that
    /// the URLs handed out under a signed base carry it.
    var mount = ""

    public init(imageID: String, version: some CustomStringConvertible) {
        self.imageID = imageID
        self.version = version.description
    }

    /// These URLs under `mount` (`/signed/{token}`; empty: as they are).
    func mounted(_ mount: String) -> PyramidURLs {
        var urls = self
        urls.mount = mount
        return urls
    }

    /// A URL as written: `head`, the id percent-encoded, `middle`, the version percent-encoded; made once
    /// from the URL's shape (`URLShape`), never spelt here.
    struct Layout {
        let head: [UInt8]
        let middle: [UInt8]

        /// `shape`'s template around its one value, the id, followed by `?v=`; a tile in `format`.
        init(_ shape: URLShape, format: DeepZoomTileFormat = .jpeg) {
            let template = shape.template(names: ["id"], format: format.rawValue)
            let around = template.components(separatedBy: "{id}")
            precondition(around.count == 2, "\(template) has one value, the id")
            head = Array(around[0].utf8)
            middle = Array((around[1] + "?v=").utf8)
        }
    }

    /// `/dzi/{id}_files/{level}/{col}_{row}.jpeg?v={version}`
    static let tilesLayout = Layout(URLShape.deepZoomTile)
    /// `/images/{id}/preview.jpeg?v={version}`
    static let previewLayout = Layout(URLShape.preview)
    /// The tiles template in each format, and the preview that goes with it (`preview(for:)`).
    private static let formatLayouts: [DeepZoomTileFormat: (tiles: Layout, preview: Layout)] = Dictionary(
        uniqueKeysWithValues: DeepZoomTileFormat.allCases.map { format in
            (format, (format == .jpeg ? tilesLayout : Layout(URLShape.deepZoomTile, format: format),
                      format == .avif ? Layout(URLShape.previewAVIF) : previewLayout))
        })
    /// `_files/` and `.jpeg?v=`: a tile's URL between the id and `L/C_R`, and after it.
    private static let (tileMiddle, tileTail): ([UInt8], [UInt8]) = {
        let around = String(decoding: tilesLayout.middle, as: UTF8.self).components(separatedBy: "{level}/{col}_{row}")
        precondition(around.count == 2, "a tile's URL has {level}/{col}_{row} once")
        return (Array(around[0].utf8), Array(around[1].utf8))
    }()

    /// `/dzi/{id}_files/` and `.jpeg?v={version}`, percent-encoded: a tile's URL around `L/C_R`.
    var tilePrefixBytes: [UInt8] { Array(mount.utf8) + Self.tilesLayout.head + Self.percentEncodedBytes(imageID) + Self.tileMiddle }
    var tileSuffixBytes: [UInt8] { Self.tileTail + Self.percentEncodedBytes(version) }

    private var tilePrefix: String { String(decoding: tilePrefixBytes, as: UTF8.self) }
    private var tileSuffix: String { String(decoding: tileSuffixBytes, as: UTF8.self) }

    private func spelled(_ layout: Layout) -> String {
        var bytes = Array(mount.utf8) + layout.head
        Self.appendPercentEncoded(imageID, to: &bytes)
        bytes += layout.middle
        Self.appendPercentEncoded(version, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `/dzi/{id}.dzi?v={version}`
    public var dzi: String { mount + URLShape.deepZoomDescriptor.path(.init(strings: [imageID])) + "?v=" + Self.percentEncoded(version) }
    /// `/dzi/{id}_files/{level}/{col}_{row}.jpeg?v={version}`, the template as `ImageJSON.urls.tiles` shows it.
    public var tiles: String { spelled(Self.tilesLayout) }
    /// `/images/{id}/preview.jpeg?v={version}`
    public var preview: String { spelled(Self.previewLayout) }

    /// `/dzi/{id}_files/{level}/{col}_{row}.{format}?v={version}`: the tiles template in `format`.
    func tiles(in format: DeepZoomTileFormat) -> String { spelled(Self.formatLayouts[format]!.tiles) }

    /// The preview to draw with `format`'s tiles: `preview.avif` with AVIF tiles (made from the finer level's
    /// tiles, as they are: `PreviewAVIF`), else `preview.jpeg`. There is no WebP preview: from `preview.jpeg`
    /// it would be a softer second generation. A transparent image's preview keeps its alpha: `preview.png` with
    /// PNG and WebP tiles (the WebP would be made from it), `preview.avif` with AVIF ones (`TransparentAnswers`).
    func preview(for format: DeepZoomTileFormat, transparent: Bool = false) -> String {
        guard transparent, format != .avif, format != .jpeg else { return spelled(Self.formatLayouts[format]!.preview) }
        return spelled(Self.alphaPreviewLayout)
    }

    private static let alphaPreviewLayout = Layout(URLShape.previewPNG)

    /// `/images/{id}/between/{level}/{step}/{col}_{row}.{format}?v={version}`: the tiles template of the levels
    /// between Deep Zoom's (`BetweenLevel`) in `format`; nil for a format they are not made in (JPEG and AVIF only).
    func between(in format: DeepZoomTileFormat) -> String? {
        guard format == .jpeg || format == .avif else { return nil }
        let template = URLShape.betweenTile.template(names: ["id", "step"], format: format.rawValue)
        return mount + template.replacingOccurrences(of: "{id}", with: Self.percentEncoded(imageID)) + "?v="
            + Self.percentEncoded(version)
    }

    /// `/dzi/{id}_files/{level}/{column}_{row}.jpeg?v={version}`
    public func tile(_ address: TileAddress) -> String {
        "\(tilePrefix)\(address.level)/\(address.column)_\(address.row)\(tileSuffix)"
    }
    public static func percentEncoded(_ text: String) -> String {
        String(decoding: percentEncodedBytes(text), as: UTF8.self)
    }

    static func percentEncodedBytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        appendPercentEncoded(text, to: &bytes)
        return bytes
    }

    /// Whether `byte` stands for itself in a URL path or query (`A-Z a-z 0-9 - . _ ~`).
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Appends `text` with everything but `A-Z a-z 0-9 - . _ ~` percent-encoded.
    static func appendPercentEncoded(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0xF))
            }
        }
    }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
