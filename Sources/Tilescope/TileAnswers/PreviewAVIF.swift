import Foundation
import Imaging

/// The preview (`preview.jpeg`, the preview level's whole picture) in AVIF: the preview level made from the
/// next finer level's stored tiles shrunk 2 x 2 (`PyramidRegionReader.levelFromFinerLevel`), as the AVIF
/// tiles below the deepest level are, encoded at the lowest of `TileQualities.previewAVIF` whose SSIM against those pixels
/// reaches `preview.jpeg`'s.
///
/// Why: a viewer at fit draws the preview alone, and on bench/client's image it was an eighth of a DPR 1
/// view's bytes (349 of 2,608 KiB cold; docs/benchmarks-history.md), the same JPEG in every run. At Q70
/// effort 3 its AVIF is 55 % of those bytes at a higher SSIM against the source (0.9862 against 0.9837;
/// docs/benchmarks.md). Not from
/// `preview.jpeg` itself: an encoding of JPEG pixels is a second generation and only loses picture.
///
/// Checked per image, unlike the tiles below the deepest level: one picture, once, so the check costs little
/// next to the encoding, and a preview is what every viewer of the image sees first. The reference is the
/// finer level shrunk, not the source (which may take a whole decode to read again): those pixels are
/// closer to the source than the stored JPEGs (SSIM 0.997 on the bench image's tiles). Where no quality
/// reaches the JPEG's picture in fewer bytes than `preview.jpeg` re-encoded losslessly (`OptimizedJPEG`),
/// and for images whose preview level is their deepest (no finer level), that re-encoded JPEG is kept
/// instead and answered as `image/jpeg`: the AVIF URL never sends more bytes or a softer picture than the
/// JPEG one.
///
/// Made once per version, when the build publishes the finer level or on the first request otherwise, one
/// preview at a time (`DerivedFormats.previews`): about a second of CPU and a 35-40 MB encoder for a
/// 1024 x 1024 preview. Stored in the version's folder under a name that says the encoding
/// (`previews/{folderName}.avif`), outside `formats/`: part of what a finished build serves, like `preview.jpeg`.
struct PreviewAVIF: Sendable {
    /// Names the encoding, so a preview made under other settings is never served for these.
    static var folderName: String {
        let ladder = TileQualities.previewAVIF
        return "avif-finer-q\(ladder.qualities.map(String.init).joined(separator: "-"))-e\(ladder.effort)"
    }

    /// `.../pyramids/{id}/{version}`
    let versionFolder: String

    var path: String { "\(versionFolder)/previews/\(Self.folderName).avif" }
    /// Where the re-encoded `preview.jpeg` is kept when no AVIF reached its picture in fewer bytes.
    var jpegPath: String { "\(versionFolder)/previews/\(Self.folderName).huffman.jpeg" }

    /// The ETag of the made preview, or of the kept JPEG (other bytes, another tag).
    static func etag(version: String, isJPEG: Bool) -> TileETag {
        TileETag(version: version, .preview, encoding: folderName, bytes: isJPEG ? .keptJPEG : .encoded)
    }

    /// The kept JPEG, and its JPEG XL (`previews/{folderName}.jxl`, `-jxl` tag) for the clients that accept it.
    func kept(version: String, storedPath: String) -> KeptJPEG {
        KeptJPEG(path: jpegPath, etag: Self.etag(version: version, isJPEG: true),
                 jxlPath: "\(versionFolder)/previews/\(Self.folderName).jxl", storedPath: storedPath, name: "preview")
    }

    /// True once either answer is stored.
    var isMade: Bool { access(path, F_OK) == 0 || access(jpegPath, F_OK) == 0 }

    /// Makes and stores the preview's answer from `pyramid`'s tiles and `previewPath` (`preview.jpeg`):
    /// the AVIF if one reaches the JPEG's picture in fewer bytes than the re-encoded JPEG, else that JPEG.
    /// The bytes, and whether they are the JPEG's.
    @discardableResult
    func write(pyramid: PyramidRegionReader, previewLevel: Int, previewPath: String) throws
        -> (bytes: [UInt8], isJPEG: Bool) {
        guard let stored = FileManager.default.contents(atPath: previewPath) else {
            throw APIError(500, "render_failed", "the preview cannot be read")
        }
        let jpeg = [UInt8](stored)
        let kept = KeptJPEG.optimized(jpeg, tile: "preview")
        if previewLevel < pyramid.pyramid.maxLevel,
           let avif = try Self.avif(of: pyramid.levelFromFinerLevel(previewLevel), reaching: jpeg, under: kept.count) {
            DerivedFile.publish(avif, at: path, versionFolder: versionFolder)
            return (avif, false)
        }
        DerivedFile.publish(kept, at: jpegPath, versionFolder: versionFolder)
        return (kept, true)
    }

    /// The first AVIF of `pixels` up the preview's ladder (`TileQualities.previewAVIF`) smaller than `limit`
    /// bytes whose SSIM against `pixels` reaches `jpeg`'s; nil if none does, or if the JPEG is not a picture of
    /// their size.
    static func avif(of pixels: RegionPixels, reaching jpeg: [UInt8], under limit: Int) throws -> [UInt8]? {
        try TileQualities.previewAVIF.first(of: pixels.copy(), reaching: jpeg, under: limit)
    }
}

extension DerivedFormats {
    /// Queues the making of the version's AVIF preview, unless it is made, queued, or the level it is made
    /// from is not published yet (the build queues it when that level is, a request after that otherwise).
    func queuePreviewAVIF(id: String, version: String, manifest: PyramidManifest) {
        guard DeepZoomTileFormat.offered.contains(.avif) else { return }
        let pyramid = manifest.pyramid
        let level = pyramid.previewLevel()
        guard manifest.isReady(level: min(level + 1, pyramid.maxLevel)) else { return }
        let files = PreviewAVIF(versionFolder: store.versionFolder(id: id, version: version))
        guard !files.isMade else { return }
        let store = self.store
        let reads = FetchingReads(store: store)
        let reader = PyramidRegionReader(pyramid: pyramid, tilePath: { level, column, row in
            reads.path(store.tilePath(id: id, version: version, level: level, column: column, row: row))
        })
        let previewPath = store.previewPath(id: id, version: version)
        previews.enqueue(files.path) {
            guard !files.isMade else { return }  // made meanwhile by an earlier encoding
            do {
                try files.write(pyramid: reader, previewLevel: level, previewPath: reads.path(previewPath))
            } catch {
                // The next request answers the JPEG again and queues it again.
                Log.info("cannot make the AVIF preview of \(id): \(error)")
            }
            // The encoder's tens of megabytes, freed, would otherwise stay resident in this thread's arena.
            FreedMemory.returnToSystem()
        }
    }
}
