import Imaging

/// The encoding of a Deep Zoom pyramid's tiles as served: the stored JPEG tiles themselves, WebP tiles
/// made from them, or AVIF tiles made from the next finer level's stored tiles (at the deepest level,
/// from the source's pixels), on first request (`DeepZoomFormatTiles`). A transparent image also has PNG
/// tiles (stored, alpha kept), and its WebP and AVIF are made from those (`TransparentAnswers`).
///
/// A client picks one with `?format=` on the descriptor (`/dzi/{id}.dzi?format=webp`), which answers
/// `Format="webp"`; viewers then ask for `{level}/{column}_{row}.webp`.
enum DeepZoomTileFormat: String, CaseIterable, Sendable {
    case jpeg, webp, avif, png

    var encoded: EncodedFormat {
        switch self {
        case .jpeg: return .jpeg
        case .webp: return .webp
        case .avif: return .avif
        case .png: return .png
        }
    }

    /// The folder a version's tiles in this format are stored in, named after the encoding, so that
    /// tiles made under other settings (AVIF used to be Q50 from the stored tile, in `avif/`; the deepest
    /// level's was the JPEG until its AVIF came from the source) are never served for these.
    var folderName: String {
        switch self {
        case .jpeg: return "jpeg"
        case .png: return "png"
        case .webp: return "webp"
        case .avif:
            // The lossy JPEG XL kept beside an AVIF tile is named too: a folder made before it has the stored
            // tile's recompression beside its AVIF tiles (or nothing), never to be taken for the lossy one.
            let source = TileQualities.sourceAVIF, jpegXL = TileQualities.sourceJPEGXL
            return "avif-finer-q\(TileQualities.finerLevelAVIFQuality)-e\(TileQualities.finerLevelAVIFEffort)"
                + "-source-q\(source.qualities.map(String.init).joined(separator: "-"))-e\(source.effort)"
                + "-jxl-q\(jpegXL.qualities.map(String.init).joined(separator: "-"))-e\(jpegXL.effort)"
        }
    }

    /// The formats this server can write here (AVIF only where libvips has an AV1 encoder).
    static var offered: [DeepZoomTileFormat] { allCases.filter(\.encoded.isAvailable) }

    /// The formats offered for an image: PNG for a transparent one only (an opaque image's PNG tiles would be its
    /// JPEG's pixels in several times the bytes).
    static func offered(transparent: Bool) -> [DeepZoomTileFormat] {
        offered.filter { $0 != .png || transparent }
    }

    /// The formats every image is offered in.
    static var offeredForEveryImage: [DeepZoomTileFormat] { offered(transparent: false) }

    /// The tile file extension a request names: `jpeg`, `webp` or `avif`, when offered.
    init?(fileExtension: some StringProtocol) {
        guard let format = DeepZoomTileFormat(rawValue: String(fileExtension)), format.encoded.isAvailable else {
            return nil
        }
        self = format
    }

    /// The format a tile URL's extension names (one of `URLShape.tileFormats`), or the 404 that says this server
    /// makes none of it.
    static func offered(_ fileExtension: String) throws -> DeepZoomTileFormat {
        guard let format = DeepZoomTileFormat(fileExtension: fileExtension) else {
            throw APIError.notFound("\(fileExtension) tiles are not offered here (libvips has no encoder for them)")
        }
        return format
    }

    /// The descriptor's `format` query parameter: absent means the stored JPEG tiles; `jpg` is
    /// accepted for `jpeg`; anything else is a 400 naming what is offered.
    static func parse(query value: String?) throws -> DeepZoomTileFormat {
        guard let value else { return .jpeg }
        if value == "jpg" { return .jpeg }
        guard let format = DeepZoomTileFormat(fileExtension: value) else {
            throw APIError.badRequest("format '\(value.prefix(40))' is not one of "
                + offered.map(\.rawValue).joined(separator: ", "))
        }
        return format
    }
}
