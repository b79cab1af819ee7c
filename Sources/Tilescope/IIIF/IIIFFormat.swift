import Imaging

/// The format parameter: the file extension and the encoder behind it.
enum IIIFFormat: String, CaseIterable, Sendable {
    case jpg, png, webp, gif, tif, jp2

    var encoded: EncodedFormat {
        switch self {
        case .jpg: return .jpeg
        case .png: return .png
        case .webp: return .webp
        case .gif: return .gif
        case .tif: return .tiff
        case .jp2: return .jp2
        }
    }

    /// Formats beyond level 2's jpg and png, as info.json lists them.
    static let extra: [IIIFFormat] = [.webp, .gif, .tif, .jp2]
}
