import Foundation
import HTTPServer
import Imaging

/// The tiles and preview of a transparent image (`PyramidManifest.isTransparent`) in the formats that keep its
/// alpha: PNG, WebP and AVIF. Its stored JPEG tiles are laid over the background (`Background`) and nothing
/// here is made from them: PNG is the stored PNG tile itself (lossless, from the build's second pass); WebP
/// and AVIF are encoded from it on the first request, on a worker, before the reply, and kept under
/// `formats/{folder}/`. No JPEG stands in while they are made and none is kept where an encoding came out
/// larger, and no JPEG XL is offered: each would lose the transparency. The preview likewise, from
/// `preview.png`.
struct TransparentAnswers: Sendable {
    /// `.../pyramids/{id}/{version}`
    let versionFolder: String
    let format: DeepZoomTileFormat

    /// The folder of the made files, named after the encoding and its settings (as `DeepZoomTileFormat.folderName`),
    /// so files made under other settings are never served for these; also the ETags' encoding.
    var folderName: String {
        switch format {
        case .jpeg, .png: return format.rawValue
        case .webp:
            return "alpha-webp-q\(TileQualities.quality(of: .webp, jpegQuality: 0))"
        case .avif:
            return "alpha-avif-q\(TileQualities.transparentAVIFQuality)-e\(TileQualities.transparentAVIFEffort)"
        }
    }

    func path(level: Int, column: Int, row: Int) -> String {
        "\(versionFolder)/formats/\(folderName)/\(level)/\(column)_\(row).\(format.rawValue)"
    }

    var previewPath: String { "\(versionFolder)/formats/\(folderName)/preview.\(format.rawValue)" }

    func etag(version: String, _ subject: TileETag.Subject) -> TileETag {
        TileETag(version: version, subject, encoding: folderName)
    }

    /// Encodes the PNG at `pngPath` (a tile or the preview, alpha kept) in this format, keeps it at `path`, and
    /// returns its bytes.
    func write(from pngPath: String, to path: String) throws -> [UInt8] {
        let image = try VImage.open(pngPath)
        let bytes: [UInt8]
        switch format {
        case .avif:
            bytes = try image.avifData(quality: TileQualities.transparentAVIFQuality, effort: TileQualities.transparentAVIFEffort)
        case .webp:
            bytes = try image.encoded(as: .webp, quality: TileQualities.quality(of: .webp, jpegQuality: 0))
        case .jpeg, .png:
            throw APIError(500, "render_failed", "\(format.rawValue) is stored, not made")
        }
        DerivedFile.publish(bytes, at: path, versionFolder: versionFolder)
        return bytes
    }
}

extension DerivedFormats {
    /// A transparent image's tile in `question.format`: the stored PNG, or the made WebP or AVIF (made now if it
    /// is not yet).
    func transparentTile(_ question: TileQuestion, level: Int, column: Int, row: Int) -> TileAnswer {
        let id = question.record.id, version = question.version
        let files = TransparentAnswers(versionFolder: store.versionFolder(id: id, version: version), format: question.format)
        let png = store.alphaTilePath(id: id, version: version, level: level, column: column, row: row)
        let subject = TileETag.Subject.tile(level: level, column: column, row: row)
        return transparentAnswer(question, files: files, png: png, made: files.path(level: level, column: column, row: row),
                                 etag: files.etag(version: version, subject), what: "tile \(level)/\(column)_\(row)")
    }

    /// A transparent image's preview in `question.format` (AVIF): as its tiles, from `preview.png`.
    func transparentPreview(_ question: TileQuestion) -> TileAnswer {
        let id = question.record.id, version = question.version
        let files = TransparentAnswers(versionFolder: store.versionFolder(id: id, version: version), format: question.format)
        return transparentAnswer(question, files: files, png: store.alphaPreviewPath(id: id, version: version),
                                 made: files.previewPath, etag: files.etag(version: version, .preview), what: "preview")
    }

    private func transparentAnswer(_ question: TileQuestion, files: TransparentAnswers, png: String, made: String,
                                   etag: TileETag, what: String) -> TileAnswer {
        let type = question.format.encoded.mediaType
        let cacheControl = question.cacheControl
        if question.format == .png {
            return stored(png, type: type, etag: etag, cacheControl: cacheControl, question)
                ?? .failed(APIError(500, "render_failed", "the stored PNG \(what) of \(question.record.id) cannot be read"),
                           varies: false)
        }
        if let answer = stored(made, type: type, etag: etag, cacheControl: cacheControl, question) { return answer }
        return .made(soon: false, pixels: question.workPixels) {
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let body = try files.write(from: png, to: made)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                return .bytes(.made(body), type: type, etag: etag, cacheControl: cacheControl,
                              timing: "tile;desc=written, render;dur=" + ServerTiming.milliseconds(seconds))
            } catch {
                return .failed(APIError(500, "render_failed", "cannot make the \(question.format.rawValue) \(what): \(error)"),
                               varies: false)
            }
        }
    }
}
