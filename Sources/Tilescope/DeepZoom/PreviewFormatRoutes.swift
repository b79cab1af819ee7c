import Foundation
import HTTPServer
import Imaging

/// `/images/{id}/preview.avif`: the preview in AVIF (`PreviewAVIF`), for the viewers that ask for AVIF tiles; and
/// `/images/{id}/preview.png`, a transparent image's preview with its alpha (`TransparentAnswers`: 404 for others).
///
/// Made once per version, behind the replies, like the AVIF tiles: when the build publishes the level the
/// preview is made from (`DerivedFormats.queuePreviewAVIF`, called by the build queue), or on the first GET for a pyramid
/// built otherwise (`tilescope build`, an older version of this server); one at a time, on a thread of its
/// own (`DerivedFormats.previews`: the encoder takes 35-40 MB for a 1024 x 1024 picture), at most 64 waiting.
/// Until it is made the URL answers with `preview.jpeg` re-encoded losslessly (the same pixels in fewer
/// bytes), as `image/jpeg` under the AVIF URL with the interim tiles' short cache (`DerivedFormats.interimCacheControl`)
/// and a tag of its own; once made, with the file, for a year on the versioned URL.
extension TilescopeApp {
    func previewFormat(_ id: String, format: DeepZoomTileFormat, _ request: Request) throws -> Reply {
        let (record, manifest) = try publishedImage(id)
        if manifest.isDirect { throw Self.noFormatsForDirect(id, format) }
        let question = TileQuestion(
            record: record, manifest: manifest, picture: .preview, format: format,
            acceptsJXL: JPEGXLAnswers.accepted(by: request),
            cacheControl: HTTPCaching.cacheControl(for: request, currentVersion: record.version),
            mayStartWork: request.method == "GET", holds: { HTTPCaching.notModified(request, etag: $0) })
        let stored = manifest.isTransparent ? store.alphaPreviewPath(id: id, version: record.version)
            : store.previewPath(id: id, version: record.version)
        return answerDerived(question, madeFrom: stored, request)
    }
}
