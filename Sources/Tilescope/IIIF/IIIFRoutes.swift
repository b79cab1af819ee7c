import Foundation
import HTTPServer
import Imaging
import ScrollGeometry

/// IIIF Image API 3.0 over the Deep Zoom pyramids: the base URI, info.json and image requests.
extension TilescopeApp {
    /// `GET /iiif/3/{id}`: 303 to the image information document.
    func iiifRedirect(_ id: String, _ request: Request) throws -> Response {
        _ = try record(id)
        return Response(status: 303, headers: [
            ("Location", iiif.baseURI(id: id, request: request) + "/info.json"), ("Cache-Control", "no-cache"),
        ])
    }

    /// `GET /iiif/3/{id}/info.json`, as JSON-LD when the client asks for it.
    func iiifInfo(_ id: String, _ request: Request) throws -> Reply {
        try info(id, base: iiif.baseURI(id: id, request: request), apiVersion: 3, request) { base, manifest, maxArea, tileSize, auth in
            var info = IIIFInfo(id: base, pyramid: manifest.pyramid, maxArea: maxArea,
                                micronsPerPixel: manifest.micronsPerPixel, tileSize: tileSize)
            if let auth { info.service = (info.service ?? []) + [.auth(auth)] }
            return JSON.encode(info)
        }
    }

    /// info.json of either API version, `document` making its body from the image's base URI, manifest, the
    /// server's maxArea, the IIIF tile size (`withIIIFTileSize`) and, for a private image, its IIIF
    /// Authorization Flow 2.0 probe service.
    func info(_ id: String, base: String, apiVersion: Int, _ request: Request,
              document: @escaping @Sendable (String, PyramidManifest, Int, PixelSize?, AuthProbeService?) -> [UInt8]) throws -> Reply {
        let (record, manifest) = try readyImage(id)
        let auth = authProbe(for: record, request)
        let maxArea = iiif.maxArea
        let (contextURI, profileURI) = apiVersion == 2 ? (IIIF2Info.contextURI, IIIF2Info.profileURI)
            : (IIIFInfo.contextURI, IIIFInfo.profileURI)
        return withIIIFTileSize(of: record, manifest) { [self] tileSize in
            infoResponse(document(base, manifest, maxArea, tileSize, auth), version: record.version, base: base,
                         apiVersion: apiVersion, contextURI: contextURI, profileURI: profileURI, request)
        }
    }

    /// An info.json answer of either API version: JSON-LD when the client asks for it, cached an hour,
    /// with an ETag that covers the id (which depends on the host the client used).
    func infoResponse(_ body: [UInt8], version: String, base: String, apiVersion: Int, contextURI: String,
                      profileURI: String, _ request: Request) -> Response {
        let wantsLD = request.header("accept")?.contains("application/ld+json") ?? false
        let type = wantsLD ? "application/ld+json;profile=\"\(contextURI)\"" : "application/json"
        let etag = TileETag(version: version, .iiifInfo(apiVersion: apiVersion, base: base, jsonLD: wantsLD)).text
        let headers: [(name: String, value: String)] = [
            ("Content-Type", type), ("ETag", etag), ("Cache-Control", "public, max-age=3600"),
            ("Vary", "Accept, Host, X-Forwarded-Host, X-Forwarded-Proto"),
            ("Link", "<\(profileURI)>;rel=\"profile\""),
        ]
        if HTTPCaching.notModified(request, etag: etag) { return Response(status: 304, headers: headers) }
        return Response(status: 200, headers: headers, body: .bytes(body))
    }

    /// `GET /iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`.
    /// Stored tiles, cache hits and 304s are answered at once; rendering goes to a worker thread.
    func iiifImage(_ id: String, region: String, size: String, rotation: String, qualityAndFormat: String,
                   _ request: Request) throws -> Reply {
        let (record, manifest) = try readyImage(id)
        let pyramid = manifest.pyramid
        let rendering = try IIIFImageRequest.parse(region: region, size: size, rotation: rotation,
                                                   qualityAndFormat: qualityAndFormat)
            .resolve(width: pyramid.width, height: pyramid.height, maxArea: iiif.maxArea)
        return try serve(rendering, of: record, manifest, base: iiif.baseURI(id: id, request: request),
                         profileURI: IIIFInfo.profileURI, request)
    }

    /// Answers a resolved request of either API version: `base` and `profileURI` are the
    /// version's own, for the Link header; the renderer, files, cache and ETag are shared.
    func serve(_ rendering: IIIFRendering, of record: ImageRecord, _ manifest: PyramidManifest, base: String,
               profileURI: String, _ request: Request) throws -> Reply {
        let id = record.id
        let pyramid = manifest.pyramid
        let etag = TileETag(version: record.version, .iiifImage(canonical: rendering.canonical)).text
        // IIIF URLs carry no version: a day of freshness, then revalidation by ETag (which
        // holds the version). With `?v=` naming the current version, a year, immutable.
        let cacheControl = HTTPCaching.cacheControl(for: request, currentVersion: record.version) == HTTPCaching.immutable
            ? HTTPCaching.immutable : "public, max-age=86400"
        let link = "<\(base)/\(rendering.canonical)>;rel=\"canonical\",<\(profileURI)>;rel=\"profile\""
        var headers: [(name: String, value: String)] = [
            ("Content-Type", rendering.format.encoded.mediaType), ("ETag", etag), ("Cache-Control", cacheControl),
            ("Link", link),
        ]
        if HTTPCaching.notModified(request, etag: etag) { return .now(Response(status: 304, headers: headers)) }
        let store = self.store
        let version = record.version
        // A transparent image's regions come from its PNG tiles, alpha kept; their deepest level is the source's
        // own pixels, so it needs no lossless copy.
        let transparent = manifest.isTransparent
        // With an object store, tiles not on this replica yet are fetched as the render reads them.
        let reads = FetchingReads(store: store)
        let pyramidReader = PyramidRegionReader(pyramid: pyramid, isTransparent: transparent, tilePath: { level, column, row in
            reads.path(transparent ? store.alphaTilePath(id: id, version: version, level: level, column: column, row: row)
                : store.tilePath(id: id, version: version, level: level, column: column, row: row))
        })
        let versionFolder = store.versionFolder(id: id, version: version)
        let lossless = iiif.lossless
        let direct = manifest.isDirect, sources = directSources
        // Runs on the worker thread: finding (or writing) the lossless copy reads files. A source served from its
        // own levels is read itself: its full level is the source's pixels.
        let reader: @Sendable () throws -> any RegionReading = {
            if direct { return try sources.source(of: record) }
            guard rendering.wantsSourcePixels, !transparent,
                  let copy = try lossless.copy(of: record, in: versionFolder) else { return pyramidReader }
            return copy
        }
        let quality = iiif.jpegQuality, background = iiif.background
        // Coinciding tiles are kept as files for built pyramids; a direct source writes none (its renders are kept
        // in the derivative cache's memory like any other).
        if !direct, let tile = IIIFTileFiles.tile(for: rendering, in: pyramid) {
            let files = IIIFTileFiles(versionFolder: versionFolder)
            if let stored = storedTile(at: files.path(tile), format: rendering.format) {
                return .now(Response(status: 200, headers: headers + [("Server-Timing", "tile;desc=stored")],
                                     body: .shared(stored)))
            }
            let writes = iiif.tileWrites
            if let storing = writes.bytes(at: files.path(tile)) {
                return .now(Response(status: 200, headers: headers + [("Server-Timing", "tile;desc=storing")],
                                     body: .bytes(storing)))
            }
            let commonHeaders = headers
            let work: @Sendable () -> Response = {
                Self.timed(commonHeaders, "tile;desc=written", rendering, reads, direct: nil) {
                    try files.write(tile, rendering: rendering, reader: reader(), jpegQuality: quality, background: background,
                                    writes: writes)
                }
            }
            // One stored tile decoded and encoded, about a millisecond, may run on the poll thread when nothing
            // else is in flight (`CostlyWork.mayRunInline`), unless it could block: a lossless copy to look for (or write), or a
            // tile write that would have to happen before the reply (the writers' queue full).
            // Nor when its tiles may have to be fetched from an object store first.
            let bounded = (!rendering.wantsSourcePixels || transparent || lossless.knownToHaveNoCopy(record)) && writes.hasRoom
                && !store.fetchesOnMiss
            return .costly(CostlyWork(client: clients.client(of: request), pixels: rendering.estimatedPixels,
                                      mayRunInline: bounded, make: work))
        }
        // A source served directly: the tiles of its own grid are held in memory once made (`DirectGridTiles`),
        // those sent as stored among them. Only from a source already open; opening one is left to the render thread.
        let openSource = direct ? sources.openSource(of: record) : nil
        if let source = openSource {
            let grid = DirectGridTiles(of: source, pyramid, versionFolder: versionFolder)
            let heldPath = grid.key(for: rendering)
            if let heldPath, let held = pyramidBytes.held(at: heldPath) {
                return .now(Response(status: 200, headers: headers + [("Server-Timing", "tile;desc=held")], body: .shared(held)))
            }
            // A stored tile sent as stored: a read of tens of kilobytes, as a built tile's file is read on the poll thread.
            if let stored = try? StoredSourceTiles.jpeg(for: rendering, from: source) {
                let bytes = SharedBytes(copying: stored)
                if let heldPath { pyramidBytes.hold(bytes, at: heldPath) }
                return .now(Response(status: 200, headers: headers + [("Server-Timing", "tile;desc=passed")], body: .shared(bytes)))
            }
        }
        let key = "\(id)/\(record.version)/\(rendering.canonical)"
        if let hit = iiif.cache.get(key) {
            headers.append(("Server-Timing", "cache;desc=hit"))
            return .now(Response(status: 200, headers: headers, body: .bytes(hit.body)))
        }
        let cache = iiif.cache, memory = pyramidBytes
        let commonHeaders = headers
        return .costly(CostlyWork(client: clients.client(of: request), pixels: rendering.estimatedPixels) {
            Self.timed(commonHeaders, "cache;desc=miss", rendering, reads, direct: direct ? (sources, record) : nil) {
                let reader = try reader()
                guard direct, let source = reader as? PyramidalSource else {
                    let body = try IIIFRenderer(reader: reader, jpegQuality: quality, background: background).render(rendering)
                    cache.put(key, DerivativeCache.Item(body: body, contentType: rendering.format.encoded.mediaType))
                    return body
                }
                let heldPath = DirectGridTiles(of: source, pyramid, versionFolder: versionFolder).key(for: rendering)
                // A stored tile that cannot be read as stored (a damaged tile) is rendered like any other answer.
                let body = try (try? StoredSourceTiles.jpeg(for: rendering, from: source))
                    ?? IIIFRenderer(reader: reader, jpegQuality: quality, background: background).render(rendering)
                if let heldPath {
                    memory.hold(SharedBytes(copying: body), at: heldPath)
                } else {
                    cache.put(key, DerivativeCache.Item(body: body, contentType: rendering.format.encoded.mediaType))
                }
                return body
            }
        })
    }

    /// The bytes of a stored tile file if it is whole, else nil (and a damaged file is deleted, to be
    /// made again). Through the same hot-file memory as the Deep Zoom tiles: a stored tile never changes
    /// (written once, renamed into place, under its version's folder), and a file response costs an
    /// open, a read and a send per 4 KB, about twice the CPU of one `sendmsg` from memory (docs/benchmarks.md).
    private func storedTile(at path: String, format: IIIFFormat) -> SharedBytes? {
        guard let bytes = pyramidBytes.bytes(at: path) ?? SharedBytes.read(path: path, limit: Self.maxStoredTileBytes)
        else { return nil }
        guard StoredTileCheck.isWhole(bytes, format: format) else {
            unlink(path)
            pyramidBytes.remove(path)
            return nil
        }
        return bytes
    }

    /// Larger than any 254-px tile in any format: a file beyond it is not a tile of ours.
    static let maxStoredTileBytes = 4 << 20

    /// Runs a render on the worker thread and answers with its bytes and its duration. A render that failed because
    /// the object store did not give a tile it reads (`reads`), or a bucket did not give the bytes of a source
    /// served from its own levels (`direct`), is answered as the store's failure (503 with `Retry-After`, or 502).
    private static func timed(_ headers: [(name: String, value: String)], _ what: String, _ rendering: IIIFRendering,
                              _ reads: FetchingReads, direct: (sources: DirectSources, record: ImageRecord)?,
                              _ render: () throws -> [UInt8]) -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let body = try render()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let timing = ("Server-Timing", "\(what), render;dur=" + ServerTiming.milliseconds(seconds))
            return Response(status: 200, headers: headers + [timing], body: .bytes(body))
        } catch {
            if let failure = reads.storeFailure { return APIError(failure).response }
            if let direct, let failure = direct.sources.storeFailure(of: direct.record, error, since: start) { return failure.response }
            return APIError(500, "render_failed", "cannot render \(rendering.canonical): \(error)").response
        }
    }
}
