import Foundation
import HTTPServer
import Imaging

/// `/images/{id}/preview.avif`: the preview in AVIF (`PreviewAVIF`), for the viewers that ask for AVIF tiles.
///
/// Made once per version, behind the replies, like the AVIF tiles: when the build publishes the level the
/// preview is made from (`queuePreviewAVIF`, called by the build queue), or on the first GET for a pyramid
/// built otherwise (`tilescope build`, an older version of this server); one at a time, on a thread of its
/// own (`previewEncodings`: the encoder takes 35-40 MB for a 1024 x 1024 picture), at most 64 waiting.
/// Until it is made the URL answers with `preview.jpeg` re-encoded losslessly (the same pixels in fewer
/// bytes), as `image/jpeg` under the AVIF URL with the interim tiles' short cache (`interimCacheControl`)
/// and a tag of its own; once made, with the file, for a year on the versioned URL.
extension TilescopeApp {
    func previewFormat(_ id: String, _ request: Request) throws -> Reply {
        let (record, manifest) = try publishedImage(id)
        let version = record.version
        let files = PreviewAVIF(versionFolder: store.versionFolder(id: id, version: version))
        let cacheControl = HTTPCaching.cacheControl(for: request, currentVersion: version)
        if let stored = storedDerivedFile(files.path, type: "image/avif", etag: PreviewAVIF.etag(version: version, isJPEG: false).text,
                                          cacheControl: cacheControl, request) {
            return stored
        }
        let kept = files.kept(version: version, storedPath: store.previewPath(id: id, version: version))
        let acceptsJXL = JPEGXLAnswers.accepted(by: request)
        if let stored = keptJPEGXLFile(kept, acceptsJXL: acceptsJXL, cacheControl: cacheControl, request) {
            return stored
        }
        if let answer = keptAnswer(kept, acceptsJXL: acceptsJXL, versionFolder: files.versionFolder,
                                   cacheControl: cacheControl, request) {
            return answer
        }
        if request.method == "GET" { queuePreviewAVIF(id: id, version: version, manifest: manifest) }  // HEAD never does
        return interimPreview(record, acceptsJXL: acceptsJXL, request)
    }

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
        let reader = PyramidRegionReader(pyramid: pyramid, tilePath: { level, column, row in
            store.tilePath(id: id, version: version, level: level, column: column, row: row)
        })
        let previewPath = store.previewPath(id: id, version: version)
        previewEncodings.enqueue(files.path) {
            guard !files.isMade else { return }  // made meanwhile by an earlier encoding
            do {
                try files.write(pyramid: reader, previewLevel: level, previewPath: previewPath)
            } catch {
                // The next request answers the JPEG again and queues it again.
                Log.info("cannot make the AVIF preview of \(id): \(error)")
            }
            // The encoder's tens of megabytes, freed, would otherwise stay resident in this thread's arena.
            FreedMemory.returnToSystem()
        }
    }

    /// `preview.jpeg` re-encoded losslessly, briefly cached under a tag of its own (`InterimFormatTiles`).
    private func interimPreview(_ record: ImageRecord, acceptsJXL: Bool, _ request: Request) -> Reply {
        interimJPEG(at: store.previewPath(id: record.id, version: record.version),
                    etag: TileETag(version: record.version, .preview, encoding: PreviewAVIF.folderName,
                                   bytes: .interimJPEG),
                    named: "preview", of: record.id, acceptsJXL: acceptsJXL, request)
    }
}
