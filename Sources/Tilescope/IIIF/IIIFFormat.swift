import Imaging

/// The format parameter: the file extension and the encoder behind it.
enum IIIFFormat: String, CaseIterable, Sendable {
    case jpg, png, webp, gif, tif, jp2, avif

    /// The longest side the format can store: WebP writes 14 bits per side, GIF 16, and libjpeg
    /// stops at 65500 (`JPEG_MAX_DIMENSION`); an AVIF wider than 16384 is refused by libheif's decoder
    /// (its default security limit, Debian 12's libheif, and so libvips's heifload). An
    /// output past it is a 400 before any pixel is read, not an encoder failure (500) after.
    var maxSide: Int? {
        switch self {
        case .webp: return 16383
        case .jpg: return 65500
        case .gif: return 65535
        case .avif: return 16384
        case .png, .tif, .jp2: return nil
        }
    }

    /// info.json's `maxWidth` and `maxHeight` (one document per image, for every format): the limit
    /// of `jpg`, the format every client can ask for and the one the Presentation manifests paint
    /// with. `max` in another format also stays within that format's own `maxSide`, so `max` as
    /// `.webp` of an image wider than 16383 pixels is smaller than `max` as `.jpg`.
    static let declaredMaxSide = IIIFFormat.jpg.maxSide ?? Int.max

    /// The longest side `max` gives in this format: info.json's limit, or the format's own where it
    /// is smaller (WebP's 16383).
    var maxSideOfMax: Int { min(Self.declaredMaxSide, maxSide ?? Int.max) }

    /// The longest side of the `sizes` info.json lists: the smallest limit of `preferredFormats`, so
    /// that a listed size answers in every preferred format (WebP's 16383).
    static let listedMaxSide = IIIFFormat.preferred.compactMap(\.maxSide).min() ?? declaredMaxSide

    var encoded: EncodedFormat {
        switch self {
        case .jpg: return .jpeg
        case .png: return .png
        case .webp: return .webp
        case .gif: return .gif
        case .tif: return .tiff
        case .jp2: return .jp2
        case .avif: return .avif
        }
    }

    /// Formats that keep every pixel: a request for one of them, of a lossless source, gets the
    /// source's own pixels (`LosslessCopies`).
    var isLossless: Bool { self == .png || self == .tif }

    /// The format named by a request's extension, if this server can write it here (AVIF only
    /// where libvips has an AV1 encoder).
    static func offered(_ text: some StringProtocol) -> IIIFFormat? {
        guard let format = IIIFFormat(rawValue: String(text)), format.encoded.isAvailable else { return nil }
        return format
    }

    static var offered: [IIIFFormat] { allCases.filter(\.encoded.isAvailable) }

    /// Formats beyond level 2's jpg and png, as info.json lists them.
    static var extra: [IIIFFormat] { offered.filter { $0 != .jpg && $0 != .png } }

    /// info.json's `preferredFormats`: WebP first, smaller than a JPEG tile at a slightly lower SSIM and
    /// shown by every current browser; coinciding WebP tiles are files like JPEG ones. AVIF, smaller
    /// still, is offered but not preferred: its first encoding costs about five times WebP's CPU
    /// (docs/iiif.md#formats), and the viewers that honour this field may not check AVIF support.
    static let preferred: [IIIFFormat] = [.webp, .jpg]
}
