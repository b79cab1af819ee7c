import Foundation
import HTTPServer
import Imaging

/// The one place that decides a derived-format answer's bytes: for a Deep Zoom tile in WebP or AVIF, and for
/// the preview in AVIF, which file or buffer goes, of which type, under which ETag and cache lifetime, given
/// the client's `Accept` (`answer`). The routes find the image, ask, and send what they are told.
///
/// In the order looked at, for a tile (`answer` with `.tile`):
/// 1. to a client that takes JPEG XL, the `.jxl` kept beside the tile: always its smallest answer
///    (`DeepZoomFormatTiles.jxlPath`);
/// 2. the made WebP or AVIF file (`DeepZoomFormatTiles`);
/// 3. the stored JPEG kept re-encoded losslessly where no encoding came out smaller, or its JPEG XL made on
///    this first request (`KeptJPEG`, `JPEGXLAnswers`);
/// 4. for AVIF, the JPEG stand-in (`InterimFormatTiles`) while the tile is made behind the reply: from the
///    finer level (`FitLevelAVIF`, `FormatTileEncodings`), at the deepest level from the source
///    (`SourceTilePasses`);
/// 5. for WebP (9 ms), the tile made on a worker, stored, and answered.
/// The preview (`PreviewAVIF`) looks for its AVIF first, then 1, 3, and the stand-in while it is made.
/// A transparent image's answers keep its alpha and come from its PNG tiles instead (`TransparentAnswers`).
/// Every step's 304 is answered before its file is opened, as for every pyramid file (`HTTPCaching.file`).
final class DerivedFormats: Sendable {
    let store: any PyramidStore
    /// Where made files are opened from (kept open: they never change in place).
    let files: OpenFileCache
    /// Where a stand-in's stored JPEG is read from when it is hot.
    let memory: FileBytesCache
    /// The stored tiles' JPEG quality, which WebP's is derived from (`TileQualities.quality`).
    let jpegQuality: Int
    /// AVIF Deep Zoom tiles being made behind the JPEG answers that stand in for them: below the deepest
    /// level one by one, at it in passes down the source.
    let encodings: FormatTileEncodings
    let passes: SourceTilePasses
    /// AVIF previews being made (`PreviewAVIF`): one at a time, on a thread of their own, since each takes
    /// the encoder 35-40 MB where a tile takes a few (docs/benchmarks.md#client-vs-openseadragon).
    let previews: FormatTileEncodings

    init(store: any PyramidStore, files: OpenFileCache, memory: FileBytesCache, jpegQuality: Int,
         encodings: FormatTileEncodings, passes: SourceTilePasses, previews: FormatTileEncodings) {
        self.store = store
        self.files = files
        self.memory = memory
        self.jpegQuality = jpegQuality
        self.encodings = encodings
        self.passes = passes
        self.previews = previews
    }

    /// Follows `builds`: every manifest they publish queues what is made from its levels as soon as they are
    /// out (the AVIF preview; the fit level's AVIF tiles once the build is complete). The build queue tells this
    /// service, which it knows only as an observer, and nothing of HTTP.
    func follow(_ builds: BuildQueue) {
        builds.whenPublished { [weak self] id, version, manifest in
            // A transparent image's are made from its PNG tiles on request (`TransparentAnswers`), not from these.
            // A source served from its own levels has no JPEG tile files to make them from.
            guard !manifest.isTransparent, !manifest.isDirect else { return }
            self?.queuePreviewAVIF(id: id, version: version, manifest: manifest)
            self?.queueFitLevelAVIF(id: id, version: version, manifest: manifest)
        }
    }

    /// The answer to `question`: the bytes and how to send them, or the work that makes them.
    func answer(_ question: TileQuestion) -> TileAnswer {
        switch question.picture {
        case let .tile(level, column, row): return tile(question, level: level, column: column, row: row)
        case .preview: return preview(question)
        case let .between(level, column, row): return betweenTile(question, level: level, column: column, row: row)
        }
    }

    private func tile(_ question: TileQuestion, level: Int, column: Int, row: Int) -> TileAnswer {
        if question.manifest.isTransparent { return transparentTile(question, level: level, column: column, row: row) }
        let id = question.record.id, version = question.version, format = question.format
        if format == .png { return .failed(Self.noPNG(id), varies: false) }
        let pyramid = question.manifest.pyramid
        let etag = DeepZoomFormatTiles.etag(version: version, level: level, column: column, row: row, format: format,
                                            isJPEG: false)
        let cacheControl = question.cacheControl
        let store = self.store
        let jpegPath = store.tilePath(id: id, version: version, level: level, column: column, row: row)
        let files = DeepZoomFormatTiles(versionFolder: store.versionFolder(id: id, version: version), format: format)
        let type = format.encoded.mediaType
        let kept = files.kept(level: level, column: column, row: row, version: version, storedPath: jpegPath)
        if let stored = keptJPEGXLFile(kept, question) { return stored }
        if let stored = stored(files.path(level: level, column: column, row: row), type: type, etag: etag,
                               cacheControl: cacheControl, question) {
            return stored
        }
        if let answer = keptAnswer(kept, versionFolder: files.versionFolder, question) { return answer }
        if format == .avif && level == pyramid.maxLevel {
            // From the source, in a pass down it with the other tiles wanted. HEAD never starts one.
            if question.mayStartWork {
                let pass = SourceTilePass(record: question.record, pyramid: pyramid, files: files) { column, row in
                    store.tilePath(id: id, version: version, level: level, column: column, row: row)
                }
                passes.want("\(id)/\(version)", column: column, row: row, pass: pass.run)
            }
            return interimTile(question, level: level, column: column, row: row)
        }
        if format == .avif {
            // Made from the finer level: while a progressive build has not published it, the JPEG answers
            // and nothing is queued (a later request queues it). HEAD never starts an encoding.
            if question.manifest.isReady(level: level + 1) && question.mayStartWork {
                queueAVIFFromFinerLevel(id: id, version: version, pyramid: pyramid, level: level, column: column, row: row)
            }
            return interimTile(question, level: level, column: column, row: row)
        }
        let quality = jpegQuality
        let reads = FetchingReads(store: store)
        let reader = PyramidRegionReader(pyramid: pyramid, tilePath: { level, column, row in
            reads.path(store.tilePath(id: id, version: version, level: level, column: column, row: row))
        })
        return .made(soon: false, pixels: question.workPixels) { [self] in
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let (body, isJPEG) = try files.write(level: level, column: column, row: row, from: jpegPath,
                                                     jpegQuality: quality, pyramid: reader)
                if isJPEG && question.acceptsJXL {
                    return makeKeptJPEGXL(kept, keptSize: body.count, versionFolder: files.versionFolder, question)
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                return .bytes(.made(body), type: isJPEG ? "image/jpeg" : type, etag: isJPEG ? kept.etag : etag,
                              cacheControl: cacheControl,
                              timing: "tile;desc=written, render;dur=" + ServerTiming.milliseconds(seconds))
            } catch {
                return .failed(APIError(500, "render_failed", "cannot make the \(format.rawValue) tile: \(error)"),
                               varies: false)
            }
        }
    }

    /// PNG tiles and previews are kept for transparent images only: an opaque one's would be its JPEG's pixels
    /// in several times the bytes.
    static func noPNG(_ id: String) -> APIError {
        APIError.notFound("\(id) has no transparency, so no PNG tiles or preview: its tiles are .jpeg, .webp or .avif")
    }

    private func preview(_ question: TileQuestion) -> TileAnswer {
        if question.manifest.isTransparent { return transparentPreview(question) }
        let id = question.record.id, version = question.version
        if question.format == .png { return .failed(Self.noPNG(id), varies: false) }
        let files = PreviewAVIF(versionFolder: store.versionFolder(id: id, version: version))
        if let stored = stored(files.path, type: "image/avif", etag: PreviewAVIF.etag(version: version, isJPEG: false),
                               cacheControl: question.cacheControl, question) {
            return stored
        }
        let kept = files.kept(version: version, storedPath: store.previewPath(id: id, version: version))
        if let stored = keptJPEGXLFile(kept, question) { return stored }
        if let answer = keptAnswer(kept, versionFolder: files.versionFolder, question) { return answer }
        if question.mayStartWork { queuePreviewAVIF(id: id, version: version, manifest: question.manifest) }
        return interimPreview(question)
    }

    /// A file made for a derived-format route (a tile, a preview, a kept JPEG or its JPEG XL), if it is there;
    /// a 304 whenever the client holds its tag.
    func stored(_ path: String, type: String, etag: TileETag, cacheControl: String,
                _ question: TileQuestion) -> TileAnswer? {
        if question.holds(etag.text) { return .notModified(type: type, etag: etag, cacheControl: cacheControl) }
        guard let (descriptor, size) = files.open(path) else { return nil }
        return .bytes(.file(descriptor: descriptor, size: size), type: type, etag: etag, cacheControl: cacheControl,
                      timing: "tile;desc=stored")
    }
}
