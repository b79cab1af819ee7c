import Foundation
import HTTPServer
import Imaging

/// JPEG XL for the answers of the AVIF and WebP routes that would be JPEG bytes: to a client whose `Accept`
/// names `image/jxl`, the stored JPEG recompressed without loss (`JPEGXLRecompression`): the same picture,
/// about 87 % of the bytes of the JPEG with optimized Huffman tables otherwise sent, for 3 ms of CPU.
///
/// Where: the stand-in for a tile or preview not made yet (`interimJPEG`), and the final answer of one whose
/// encoding came out no smaller than the JPEG (the deepest level's tiles, mostly; kept as `.huffman.jpeg`).
/// The final one is made on its first such request and kept beside, as `{name}.jxl`; sent only while smaller
/// than the kept JPEG (on a grey tile with little in it, it can be a few bytes larger), else the JPEG goes.
/// The stand-in is made per request, like the JPEG it replaces: it lives ten seconds. A tile whose AVIF or
/// WebP was kept gets its `.jxl` with it where that is smaller still (`DeepZoomFormatTiles.keepJPEGXL`): beside
/// an AVIF, the smaller of this recompression and a lossy JPEG XL at the AVIF's picture.
///
/// These answers depend on `Accept`, so every answer of these routes says `Vary: Accept`; each kind of bytes
/// has an ETag of its own (`-jxl`). The plain `.jpeg` tile URLs never vary: they are the stored files.
enum JPEGXLAnswers {
    static let mediaType = "image/jxl"
    static let vary = ("Vary", "Accept")

    /// Whether `Accept` names `image/jxl` without `q=0`. Browsers that decode JPEG XL list it in the `Accept`
    /// of their image requests (Chromium 156 here: `image/jxl,image/avif,image/webp,...`); a script's `fetch`
    /// sends `*/*` unless told, so the client names it itself. `image/*` and `*/*` alone do not count: JPEG XL
    /// is new enough that a client must say it decodes it.
    static func accepted(by request: Request) -> Bool {
        guard let accept = request.header("accept"), accept.utf8.count <= 4096 else { return false }
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == mediaType else { continue }
            let refused = parts.dropFirst().contains { parameter in
                guard parameter.hasPrefix("q=") else { return false }
                return (Double(parameter.dropFirst(2)) ?? 1) <= 0
            }
            return !refused
        }
        return false
    }

    /// The JPEG XL recompression of `jpeg` if it is smaller than `limit` bytes, else nil (also when libjxl
    /// refuses the bytes: a damaged stored file goes out as the JPEG it is).
    static func smaller(_ jpeg: [UInt8], than limit: Int, name: String) -> [UInt8]? {
        do {
            let jxl = try JPEGXLRecompression.bytes(jpeg, effort: TileQualities.jpegXLEffort)
            return jxl.count < limit ? jxl : nil
        } catch {
            Log.info("the stored file \(name) cannot be recompressed as JPEG XL, sent as JPEG: \(error)")
            return nil
        }
    }

    /// The size of the regular file at `path`, or nil.
    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }
}

extension DerivedFormats {
    /// For a client that accepts JPEG XL, the `.jxl` kept beside a tile or preview: always its smallest answer
    /// (`DeepZoomFormatTiles.jxlPath`), so it is looked for first.
    func keptJPEGXLFile(_ kept: KeptJPEG, _ question: TileQuestion) -> TileAnswer? {
        guard question.acceptsJXL else { return nil }
        return stored(kept.jxlPath, type: JPEGXLAnswers.mediaType, etag: kept.jxlETag,
                      cacheControl: question.cacheControl, question)
    }

    /// The final answer of a tile or preview `kept` as JPEG, once `keptJPEGXLFile` found no `.jxl`: to a client
    /// that accepts JPEG XL, its recompression, made and kept on this first request where it is the smaller;
    /// else the kept JPEG. Nil when nothing is kept as JPEG.
    func keptAnswer(_ kept: KeptJPEG, versionFolder: String, _ question: TileQuestion) -> TileAnswer? {
        if question.acceptsJXL, let keptSize = JPEGXLAnswers.fileSize(kept.path) {
            return .made(soon: true, pixels: question.workPixels) { [self] in
                makeKeptJPEGXL(kept, keptSize: keptSize, versionFolder: versionFolder, question)
            }
        }
        return stored(kept.path, type: "image/jpeg", etag: kept.etag, cacheControl: question.cacheControl, question)
    }

    /// Makes and keeps the JPEG XL of a tile or preview `kept` as JPEG (`keptSize` bytes) and answers it; the
    /// kept JPEG instead where the JPEG XL is not the smaller (or libjxl refuses the stored file).
    func makeKeptJPEGXL(_ kept: KeptJPEG, keptSize: Int, versionFolder: String, _ question: TileQuestion) -> TileAnswer {
        let start = DispatchTime.now().uptimeNanoseconds
        guard let jpeg = FileManager.default.contents(atPath: kept.storedPath),
              let jxl = JPEGXLAnswers.smaller([UInt8](jpeg), than: keptSize, name: kept.name) else {
            return stored(kept.path, type: "image/jpeg", etag: kept.etag, cacheControl: question.cacheControl, question)
                ?? .failed(APIError.notFound("the pyramid has no such file"), varies: true)
        }
        DerivedFile.publish(jxl, at: kept.jxlPath, versionFolder: versionFolder)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return .bytes(.made(jxl), type: JPEGXLAnswers.mediaType, etag: kept.jxlETag, cacheControl: question.cacheControl,
                      timing: "tile;desc=written, render;dur=" + ServerTiming.milliseconds(seconds))
    }
}
