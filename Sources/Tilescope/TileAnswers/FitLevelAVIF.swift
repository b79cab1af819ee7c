import Foundation
import Imaging
import ScrollGeometry

/// AVIF tiles made from the finer level's stored tiles, behind the replies (`FormatTileEncodings`): the one
/// way a tile below the deepest level is queued, whether a request asked for it or the build just published
/// the level it is made from (the fit level, below).
///
/// The fit level is the level just finer than the preview's (`Pyramid.previewLevel() + 1`, at most 2048
/// pixels a side: at most 81 tiles). It is what a view of the whole image draws wherever the preview is not
/// enough: at a screen scale of 2 (most phones and laptops), or on a screen over 1024 pixels. Every such
/// viewer's first view needs all of its tiles, so they are made as soon as the build is complete (the AVIF
/// preview is made as soon as its level is out), instead of on the first viewer's requests: that viewer then gets them in
/// AVIF (on bench/client's image 589 KiB for the level against 963 in JPEG XL and 1,140 in JPEG) rather than
/// the stand-ins. Cost, once per image version: an encoding a tile, 0.15 to 0.4 s of CPU, on the encoders'
/// threads (about half the cores), at most 81 tiles; nothing for images whose fit level is their deepest (at
/// most 2048 pixels a side), whose deepest tiles come from the source only when asked for
/// (`SourceTilePasses`).
extension DerivedFormats {
    /// Queues the AVIF tile `level`/`column`_`row` of an image version, made from the finer level's stored tiles,
    /// unless it is made (or kept as JPEG), queued, or the queue is full. The finer level must be published.
    func queueAVIFFromFinerLevel(id: String, version: String, pyramid: Pyramid, level: Int, column: Int, row: Int) {
        let store = self.store
        let files = DeepZoomFormatTiles(versionFolder: store.versionFolder(id: id, version: version), format: .avif)
        let target = files.path(level: level, column: column, row: row)
        let kept = files.jpegPath(level: level, column: column, row: row)
        let jpegPath = store.tilePath(id: id, version: version, level: level, column: column, row: row)
        let quality = jpegQuality
        encodings.enqueue(target) {
            // Made meanwhile by an earlier encoding of the same tile: nothing to do.
            guard access(target, F_OK) != 0 && access(kept, F_OK) != 0 else { return }
            let reads = FetchingReads(store: store)
            let reader = PyramidRegionReader(pyramid: pyramid, tilePath: { level, column, row in
                reads.path(store.tilePath(id: id, version: version, level: level, column: column, row: row))
            })
            do {
                _ = try files.write(level: level, column: column, row: row, from: reads.path(jpegPath), jpegQuality: quality,
                                    pyramid: reader)
            } catch {
                // Its next request answers the JPEG again and queues it again.
                Log.info("cannot make the avif tile \(id) \(level)/\(column)_\(row): \(error)")
            }
        }
    }

    /// Queues the fit level's AVIF tiles once the build is complete (called for every manifest the build
    /// publishes; tiles made or queued are skipped). Not as soon as the level they are made from is out: the
    /// encoder's memory would add to the build's (docs/benchmarks.md#client-vs-openseadragon).
    func queueFitLevelAVIF(id: String, version: String, manifest: PyramidManifest) {
        guard DeepZoomTileFormat.offered.contains(.avif), manifest.isComplete else { return }
        let pyramid = manifest.pyramid
        let level = pyramid.previewLevel() + 1
        guard level < pyramid.maxLevel else { return }
        let grid = pyramid.tileGrid(ofLevel: level)
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                queueAVIFFromFinerLevel(id: id, version: version, pyramid: pyramid, level: level, column: column, row: row)
            }
        }
    }
}
