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
/// WebP was kept gets its `.jxl` with it where that is smaller still (`DeepZoomFormatTiles.keepJPEGXL`).
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

/// A tile or preview whose final answer is kept as JPEG (its encoding came out no smaller), and where its
/// JPEG XL goes.
struct KeptJPEG: Sendable {
    /// The kept JPEG (`.huffman.jpeg`) and its ETag.
    let path: String, etag: String
    /// Its JPEG XL, kept beside once made, and that one's ETag.
    let jxlPath: String, jxlETag: String
    /// The stored JPEG both are made from.
    let storedPath: String
    /// For the log: `12/3_4`, `preview`.
    let name: String
}

extension TilescopeApp {
    /// A file made for a derived-format route (a tile, a preview, a kept JPEG or its JPEG XL), if it is there:
    /// sent from the open-file cache, saying that the route's answers vary with `Accept`.
    func storedDerivedFile(_ path: String, type: String, etag: String, cacheControl: String, _ request: Request) -> Reply? {
        guard var stored = HTTPCaching.file(at: path, contentType: type, etag: etag, cacheControl: cacheControl,
                                            request: request, descriptors: pyramidFiles) else { return nil }
        if stored.status == 200 { stored.setHeader("Server-Timing", "tile;desc=stored") }
        stored.headers.append(JPEGXLAnswers.vary)
        return .now(stored)
    }

    /// For a client that accepts JPEG XL (`acceptsJXL`, read once per request), the `.jxl` kept beside a tile or
    /// preview: always its smallest answer (`DeepZoomFormatTiles.jxlPath`), so it is looked for first.
    func keptJPEGXLFile(_ kept: KeptJPEG, acceptsJXL: Bool, cacheControl: String, _ request: Request) -> Reply? {
        guard acceptsJXL else { return nil }
        return storedDerivedFile(kept.jxlPath, type: JPEGXLAnswers.mediaType, etag: kept.jxlETag,
                                 cacheControl: cacheControl, request)
    }

    /// The final answer of a tile or preview `kept` as JPEG, once `keptJPEGXLFile` found no `.jxl`: to a client
    /// that accepts JPEG XL, its recompression, made and kept on this first request where it is the smaller;
    /// else the kept JPEG. Nil when nothing is kept as JPEG.
    func keptAnswer(_ kept: KeptJPEG, acceptsJXL: Bool, versionFolder: String, cacheControl: String,
                    _ request: Request) -> Reply? {
        if acceptsJXL, let keptSize = JPEGXLAnswers.fileSize(kept.path) {
            let files = pyramidFiles
            return .soon { Self.makeKeptJPEGXL(kept, keptSize: keptSize, versionFolder: versionFolder,
                                               cacheControl: cacheControl, request, files: files) }
        }
        return storedDerivedFile(kept.path, type: "image/jpeg", etag: kept.etag, cacheControl: cacheControl, request)
    }

    /// Makes and keeps the JPEG XL of a tile or preview `kept` as JPEG (`keptSize` bytes) and answers it; the
    /// kept JPEG instead where the JPEG XL is not the smaller (or libjxl refuses the stored file).
    static func makeKeptJPEGXL(_ kept: KeptJPEG, keptSize: Int, versionFolder: String, cacheControl: String,
                               _ request: Request, files: OpenFileCache) -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        guard let jpeg = FileManager.default.contents(atPath: kept.storedPath),
              let jxl = JPEGXLAnswers.smaller([UInt8](jpeg), than: keptSize, name: kept.name) else {
            var answer = HTTPCaching.file(at: kept.path, contentType: "image/jpeg", etag: kept.etag,
                                          cacheControl: cacheControl, request: request, descriptors: files)
                ?? APIError.notFound("the pyramid has no such file").response
            answer.headers.append(JPEGXLAnswers.vary)
            return answer
        }
        DerivedFile.publish(jxl, at: kept.jxlPath, versionFolder: versionFolder)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Response(status: 200, headers: [
            ("Content-Type", JPEGXLAnswers.mediaType), ("ETag", kept.jxlETag), ("Cache-Control", cacheControl),
            JPEGXLAnswers.vary, ("Server-Timing", "tile;desc=written, render;dur=" + ServerTiming.milliseconds(seconds)),
        ], body: .bytes(jxl))
    }
}
