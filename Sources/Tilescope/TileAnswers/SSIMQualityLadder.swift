import Imaging

/// AVIF qualities tried in turn, lowest first, until the encoding's picture reaches the stored JPEG's: the
/// check that the deepest level's tiles (against the source's pixels, `SourceTilePass`) and the preview
/// (against the finer level shrunk, `PreviewAVIF`) pass before their AVIF is kept. Picture is luma SSIM
/// against the reference pixels (`LumaSSIM`), the JPEG measured the same way.
struct SSIMQualityLadder: Sendable {
    let qualities: [Int]
    let effort: Int

    /// The first AVIF of `reference` (encoded from `image()`, made only once the JPEG is known to be a picture
    /// of the reference's size) smaller than `limit` bytes whose SSIM against the reference reaches `jpeg`'s;
    /// nil if none does, or if the JPEG is not a picture of the reference's size.
    func firstAVIF(of reference: [UInt8], bands: Int, width: Int, height: Int, image: () throws -> VImage,
                   reaching jpeg: [UInt8], under limit: Int) throws -> [UInt8]? {
        func picture(_ bytes: [UInt8]) throws -> Double? {
            let decoded = try VImage.decoding(bytes)
            guard decoded.width == width, decoded.height == height else { return nil }
            return LumaSSIM.score(reference, bands: bands, try decoded.pixels(), bands: decoded.bands,
                                  width: width, height: height)
        }
        guard let target = try picture(jpeg) else { return nil }
        let image = try image()
        for quality in qualities {
            let avif = try image.avifData(quality: quality, effort: effort)
            guard avif.count < limit else { return nil }  // a higher quality only adds bytes
            if let score = try picture(avif), score >= target { return avif }
        }
        return nil
    }
}
