import Imaging

/// Every quality and encoder effort the derived formats are made at, each with the measurement that chose it:
/// the IIIF renders, the Deep Zoom WebP tiles, the Deep Zoom AVIF tiles below the deepest level and at it, the
/// AVIF preview, and the JPEG XL recompression. One place, so that a change of one is read beside the others;
/// the encoding folders (`DeepZoomTileFormat.folderName`, `PreviewAVIF.folderName`) are named from these
/// numbers, so files made under other settings are never served for them.
enum TileQualities {
    /// The quality a tile or region in this format is encoded at, given the pyramid's JPEG quality.
    /// WebP and AVIF tiles are made from the stored JPEG tiles; at these settings they keep within
    /// about 0.005 of the JPEG tile's SSIM against the source at 86% (WebP) and 35% (AVIF) of its bytes
    /// (bench/formats.sh, table in docs/api.md#measured). Formats without a quality scale ignore it.
    ///
    /// Used by the IIIF renders in every format and by the Deep Zoom WebP tiles; AVIF here is IIIF's alone, at
    /// `iiifAVIFEffort`.
    static func quality(of format: EncodedFormat, jpegQuality: Int) -> Int {
        switch format {
        case .webp: return 90
        case .avif: return 50
        default: return jpegQuality
        }
    }

    /// The IIIF renders' AVIF encoder effort. Effort 2 of 9: about half the CPU of the default 4 (52 against
    /// 106 ms a 256 px tile of the demo images, at an SSIM 0.004 lower); efforts 0 and 1 lost 0.03 of SSIM.
    static let iiifAVIFEffort = 2

    /// The Deep Zoom AVIF tiles below the deepest level, from the finer level's stored tiles
    /// (`DeepZoomFormatTiles`): quality and encoder effort. Q83 at effort 4 is the lowest that reaches the stored
    /// tiles' SSIM at every level bench/client draws (levels 11-13: 50-86% of the JPEG's bytes);
    /// effort 2 needs Q85 and then makes tiles larger than the JPEG on that image. Not effort 3, as
    /// at the deepest level: these tiles get no check of their own, and on the grain of
    /// `TileFormatTests` effort 3 at Q83 came out softer than the JPEG tile (luma squared error 1.03x),
    /// where effort 4 is 0.91x.
    static let finerLevelAVIFQuality = 83, finerLevelAVIFEffort = 4

    /// The deepest level's AVIF qualities, from the source's pixels, tried in turn until the tile's SSIM
    /// reaches the stored tile's (`SSIMQualityLadder`): at effort 3 Q88 does on 94 of 96 tiles of bench/client's
    /// grainy image at 78 % of the JPEG's bytes, Q89 (83 %) on one more; Q90 and above turn chroma subsampling off
    /// and are larger than the JPEG (bench/formats/deepest.py, docs/api.md#tile-formats).
    /// The deepest level's encoder effort: 3 makes the same bytes as 4 there (78 against 77 % of the JPEG's,
    /// 94 against 95 of 96 tiles reaching its picture) for a quarter of the CPU (40-47 against 167-182 ms a
    /// tile; bench/formats/deepest.py, 2026-12-04), and each tile is checked against the source's pixels
    /// anyway. Efforts 0 and 2 reach the JPEG's picture on at most 18 of 48 tiles, and then in more bytes.
    static let sourceAVIF = SSIMQualityLadder(qualities: [88, 89], effort: 3)

    /// The AVIF preview's qualities (`PreviewAVIF`), tried in turn until one reaches the JPEG's picture or its
    /// bytes; effort 3 (libheif's AV1 speed) made the same bytes as 4 at the deepest level for a quarter of the
    /// CPU, and here the per-image check guards the picture. On the grain of bench/client's image Q65 fell short
    /// of the JPEG's SSIM (0.9831 against 0.9837), Q70 reached it at 55 % of its bytes; a smooth picture (the
    /// tests' `SmoothImages`) needs Q85, at 37 % of them (the AVIF smooths what little texture there is). Q90
    /// and above turn chroma subsampling off, and are larger than the JPEG.
    static let previewAVIF = SSIMQualityLadder(qualities: [70, 75, 80, 85, 89], effort: 3)

    /// A transparent image's AVIF tiles and preview (`TransparentAnswers`), made from its lossless PNG tiles before
    /// the first reply (no JPEG could stand in: it would lose the alpha): the quality of the tiles made from the
    /// finer level, which reaches the stored JPEG's picture there, at the effort of the deepest level (a quarter of
    /// effort 4's CPU for the same bytes there), since a client waits for it.
    static let transparentAVIFQuality = finerLevelAVIFQuality, transparentAVIFEffort = 3

    /// libjxl's encoder effort for the JPEG XL recompression of stored JPEGs (`JPEGXLAnswers`): 7 (its default)
    /// codes bench/client's tiles in 81.9 % of the stored JPEG's bytes at 2.7-2.9 ms of CPU a tile; 8 in 81.4 %
    /// at 6.3 ms, 9 in 81.1 % at 16.6 ms, 3 in 81.9 % at 4.5 ms, 1 in 87.2 % (level 12's 289 tiles, 2026-12-04).
    static let jpegXLEffort = 7

    /// Lossy JPEG XL for a tile whose AVIF was kept, from the same pixels (the source's at the deepest level, the
    /// finer level's shrunk below it), tried in turn until the tile's SSIM against them reaches the stored tile's
    /// (`DeepZoomFormatTiles.keepJPEGXL`), for the clients that accept JPEG XL. On bench/client's kind of grainy
    /// image (bench/formats/candidates.py, 2026-12-07, two of the memory session's 4096x3072 images, 12 and 24
    /// tiles a level): at the deepest level Q88 reaches the stored tiles' mean SSIM in 57 % of their bytes, where
    /// the AVIF there takes 76-78 %; a level below, Q90 in 67-68 % against the AVIF's 80-84 %. Effort 7 (libjxl's
    /// default): 13-17 ms a tile, against 10 ms at effort 5 (56 and 70 %: no better below the deepest level), and
    /// 40-217 ms for the AVIF.
    static let sourceJPEGXL = SSIMQualityLadder(qualities: [86, 88, 90, 92], effort: 7, encoder: .jpegXL)
}
