import Imaging

/// Qualities of one encoder tried in turn, lowest first, until the encoding's picture reaches the stored JPEG's:
/// the check that the deepest level's AVIF tiles (against the source's pixels, `SourceTilePass`), the preview
/// (against the finer level shrunk, `PreviewAVIF`) and the lossy JPEG XL tiles (against the pixels their AVIF
/// was made from, `DeepZoomFormatTiles.keepJPEGXL`) pass before they are kept. Picture is luma SSIM against the
/// reference pixels (`LumaSSIM`), the JPEG measured the same way.
struct SSIMQualityLadder: Sendable {
    enum Encoder: Sendable {
        case avif, jpegXL
    }

    let qualities: [Int]
    let effort: Int
    var encoder: Encoder = .avif

    /// The first encoding of `reference` smaller than `limit` bytes whose SSIM against it reaches `jpeg`'s; nil if
    /// none does, or if the JPEG is not a picture of the reference's size.
    func first(of reference: PlainPixels, reaching jpeg: [UInt8], under limit: Int) throws -> [UInt8]? {
        func picture(_ bytes: [UInt8]) throws -> Double? {
            let decoded = try VImage.decoding(bytes)
            guard decoded.width == reference.width, decoded.height == reference.height else { return nil }
            return LumaSSIM.score(reference.pixels, bands: reference.bands, try decoded.pixels(), bands: decoded.bands,
                                  width: reference.width, height: reference.height)
        }
        guard let target = try picture(jpeg) else { return nil }
        let image = try reference.image()
        for quality in qualities {
            let encoded = try encoder == .avif ? image.avifData(quality: quality, effort: effort)
                : image.jpegXLData(quality: quality, effort: effort)
            guard encoded.count < limit else { return nil }  // a higher quality only adds bytes
            if let score = try picture(encoded), score >= target { return encoded }
        }
        return nil
    }
}
