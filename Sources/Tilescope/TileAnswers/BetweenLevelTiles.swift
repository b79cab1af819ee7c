import Foundation
import HTTPServer
import Imaging
import ScrollGeometry

/// The tiles of the levels between Deep Zoom's (`BetweenLevel`), kept in their version's folder as
/// `between/{level}.{step}/{column}_{row}.{jpeg,avif}`: made on their first request from the finer level's stored
/// tiles (`BetweenLevelTile`), so nothing is made for an image no one looks at that way, and a build's time stays
/// dzsave's. They go with their version, as every derived file does.
struct BetweenLevelFiles: Sendable {
    let versionFolder: String
    let level: BetweenLevel

    func path(column: Int, row: Int, format: DeepZoomTileFormat) -> String {
        "\(versionFolder)/between/\(level.below).\(level.step)/\(column)_\(row).\(format.rawValue)"
    }

    /// The JPEG XL kept beside an AVIF tile where it is the smaller (`keepBetweenJPEGXL`).
    func jxlPath(column: Int, row: Int) -> String {
        "\(versionFolder)/between/\(level.below).\(level.step)/\(column)_\(row).jxl"
    }
}

/// How a tile of a level between Deep Zoom's is answered (`DerivedFormats.answer`, `.between`):
/// - in JPEG, the stored file, else made at once from the finer level's stored tiles (a few milliseconds: the
///   region decoded and shrunk in plain memory, `RegionPixels`), stored, and answered;
/// - in AVIF, the stored file, else the tile's JPEG (stored, or made as above) at once as the stand-in, briefly
///   cached under a tag of its own (`InterimFormatTiles`' rule), while the AVIF is made behind the reply at the
///   settings of the AVIF tiles made from a finer level (`TileQualities.finerLevelAVIFQuality`);
/// - to a client that accepts JPEG XL, as for Deep Zoom's AVIF tiles (`JPEGXLAnswers`): the `.jxl` kept beside the
///   AVIF where it came out smaller (`DeepZoomFormatTiles.smallestJPEGXL`), and the stand-in recompressed as JPEG XL
///   where that is smaller (`interimJPEG`).
extension DerivedFormats {
    func betweenTile(_ question: TileQuestion, level: BetweenLevel, column: Int, row: Int) -> TileAnswer {
        let record = question.record, version = question.version
        let files = BetweenLevelFiles(versionFolder: store.versionFolder(id: record.id, version: version), level: level)
        let jpegPath = files.path(column: column, row: row, format: .jpeg)
        let subject = TileETag.Subject.between(level: level.below, step: level.step, column: column, row: row)
        guard question.format == .avif else {
            return betweenJPEGTile(question, level: level, column: column, row: row, files: files, subject: subject)
        }
        let cacheControl = question.cacheControl
        let avifPath = files.path(column: column, row: row, format: .avif)
        let avifTag = TileETag(version: version, subject, encoding: DeepZoomTileFormat.avif.folderName)
        if question.acceptsJXL, let stored = stored(files.jxlPath(column: column, row: row), type: JPEGXLAnswers.mediaType,
                                                    etag: avifTag.with(.keptJPEGXL), cacheControl: cacheControl, question) {
            return stored
        }
        if let stored = stored(avifPath, type: "image/avif", etag: avifTag, cacheControl: cacheControl, question) {
            return stored
        }
        // The stand-in, answered as every stand-in is (`interimJPEG`), once the tile's JPEG is there.
        let interimTag = avifTag.with(.interimJPEG), name = "between \(level.below).\(level.step)/\(column)_\(row)"
        guard access(jpegPath, F_OK) != 0 else {
            if question.mayStartWork { queueBetweenAVIF(question, level: level, column: column, row: row, files: files) }
            return interimJPEG(at: jpegPath, etag: interimTag, named: name, question)
        }
        return .made(soon: true, pixels: question.workPixels) { [self] in
            do {
                _ = try betweenJPEG(question, level: level, column: column, row: row, files: files)
            } catch {
                return .failed(APIError(error), varies: false)
            }
            if question.mayStartWork { queueBetweenAVIF(question, level: level, column: column, row: row, files: files) }
            let standIn = interimJPEG(at: jpegPath, etag: interimTag, named: name, question)
            guard case let .made(_, _, make) = standIn else { return standIn }
            return make()
        }
    }

    /// The tile in JPEG: its file, else made, stored and answered.
    private func betweenJPEGTile(_ question: TileQuestion, level: BetweenLevel, column: Int, row: Int,
                                 files: BetweenLevelFiles, subject: TileETag.Subject) -> TileAnswer {
        let jpegTag = TileETag(version: question.version, subject), cacheControl = question.cacheControl
        let path = files.path(column: column, row: row, format: .jpeg)
        if let stored = stored(path, type: "image/jpeg", etag: jpegTag, cacheControl: cacheControl, question) {
            return stored
        }
        return .made(soon: true, pixels: question.workPixels) { [self] in
            let start = DispatchTime.now().uptimeNanoseconds
            let jpeg: [UInt8]
            do {
                jpeg = try betweenJPEG(question, level: level, column: column, row: row, files: files)
            } catch {
                return .failed(APIError(error), varies: false)
            }
            return .bytes(.made(jpeg), type: "image/jpeg", etag: jpegTag, cacheControl: cacheControl,
                          timing: "tile;desc=between, render;dur=" + Self.milliseconds(since: start))
        }
    }

    /// The tile's pixels from the finer level's stored tiles (fetched first where the store keeps them elsewhere:
    /// a store's failure is thrown as it is, for its 503).
    private func betweenPixels(_ record: ImageRecord, _ pyramid: Pyramid, level: BetweenLevel, column: Int,
                               row: Int) throws -> RegionPixels {
        let store = self.store
        guard let tile = BetweenLevelTile(pyramid: pyramid, level: level, column: column, row: row) else {
            throw APIError.badRequest("tile \(column)_\(row) is outside level \(level.below).\(level.step)")
        }
        let reads = FetchingReads(store: store)
        let reader = PyramidRegionReader(pyramid: pyramid, tilePath: { finer, column, row in
            reads.path(store.tilePath(id: record.id, version: record.version, level: finer, column: column, row: row))
        })
        do {
            return try tile.pixels(from: reader)
        } catch {
            throw reads.storeFailure ?? error
        }
    }

    /// Makes the tile's JPEG at the stored tiles' quality and stores it; its bytes.
    private func betweenJPEG(_ question: TileQuestion, level: BetweenLevel, column: Int, row: Int,
                             files: BetweenLevelFiles) throws -> [UInt8] {
        let jpeg = try betweenPixels(question.record, question.manifest.pyramid, level: level, column: column, row: row)
            .jpegData(quality: jpegQuality)
        DerivedFile.publish(jpeg, at: files.path(column: column, row: row, format: .jpeg), versionFolder: files.versionFolder)
        return jpeg
    }

    /// Queues the tile's AVIF behind the reply, unless it is made, queued, or the queue is full (the next request
    /// queues it again).
    private func queueBetweenAVIF(_ question: TileQuestion, level: BetweenLevel, column: Int, row: Int,
                                  files: BetweenLevelFiles) {
        // Not the question itself: it holds the request, which the encoding outlives.
        let target = files.path(column: column, row: row, format: .avif)
        let record = question.record, pyramid = question.manifest.pyramid
        encodings.enqueue(target) { [self] in
            guard access(target, F_OK) != 0 else { return }  // made meanwhile by an earlier encoding
            do {
                let pixels = try betweenPixels(record, pyramid, level: level, column: column, row: row)
                let reference = pixels.copy()
                let avif = try pixels.image()
                    .avifData(quality: TileQualities.finerLevelAVIFQuality, effort: TileQualities.finerLevelAVIFEffort)
                // The JPEG XL first: a client that takes it looks for it before the AVIF.
                if let jpeg = FileManager.default.contents(atPath: files.path(column: column, row: row, format: .jpeg)),
                   let jxl = DeepZoomFormatTiles.smallestJPEGXL(of: [UInt8](jpeg), reference: reference, under: avif.count,
                                                                name: target) {
                    DerivedFile.publish(jxl, at: files.jxlPath(column: column, row: row), versionFolder: files.versionFolder)
                }
                DerivedFile.publish(avif, at: target, versionFolder: files.versionFolder)
            } catch {
                Log.info("cannot make the avif tile \(record.id) between \(level.below).\(level.step) \(column)_\(row): \(error)")
            }
        }
    }

    private static func milliseconds(since start: UInt64) -> String {
        ServerTiming.milliseconds(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
