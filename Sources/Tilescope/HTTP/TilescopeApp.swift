import Foundation
import HTTPServer
import Imaging

/// The application behind the HTTP server: turns each request into an endpoint, runs it,
/// maps thrown `APIError`s to JSON, and adds the headers every response carries (CORS).
public final class TilescopeApp: HTTPHandler, @unchecked Sendable {
    let library: ImageLibrary
    let store: any PyramidStore
    let publicFolder: String
    let corsOrigin: String
    let operations: Operations
    /// Captions, ratings and the gallery order.
    let galleryData: Gallery
    let uploads: Uploads
    let iiif: IIIFService
    /// Pyramid files are immutable (a new source version gets a new folder), so their
    /// descriptors can be kept open; how many is sized from the open-files limit.
    let pyramidFiles: OpenFileCache
    /// The bytes of hot pyramid files (tiles, descriptors, previews), bounded in total; keyed by a path
    /// that names the source version, so a new version is never answered from an old entry.
    let pyramidBytes: FileBytesCache
    /// Tile answers the server gives again without routing (`HotResponses`), for versioned tile URLs
    /// only; an image's entries are dropped when its version or build state changes. Nil when
    /// `pyramidCacheBytes` is 0 (no shared bytes to answer from) or `hotTileAnswers` is false.
    let hotTiles: HotResponses?
    /// What the WebP and AVIF tiles and the AVIF preview answer, and the work that makes them.
    let derivedFormats: DerivedFormats
    /// Sources served from their own levels, kept open (`DirectSources`).
    let directSources = DirectSources()
    /// Whose budget a costly request spends (`Reply.costly`): the peer, or the client a trusted proxy names.
    let clients: TrustedProxies
    /// Viewer cookies, who may rate and each client's rating-write budget.
    let viewers: Viewers
    /// Who may see private images: the admin token, a signed-in user, or a signed URL naming them (`AccessControl`).
    let access: AccessControl
    /// Users, sessions and IIIF access tokens (`Accounts`).
    let accounts: Accounts
    /// The longest side of a private image's degraded tier, open to all (`--private-preview-size`); 0: none.
    let degradedSize: Int

    public init(library: ImageLibrary, store: any PyramidStore, publicFolder: String, corsOrigin: String,
                operations: Operations = Operations(accessLog: nil), iiif: IIIFService = IIIFService(),
                gallery: Gallery, uploads: Uploads, openFiles: Int = 1024, pyramidCacheBytes: Int = 64 << 20,
                hotTileAnswers: Bool = true, trustedProxies: TrustedProxies = .none, viewers: Viewers? = nil,
                accounts: Accounts? = nil, degradedSize: Int = 0) {
        clients = trustedProxies
        self.viewers = viewers ?? Viewers(clients: trustedProxies)
        self.accounts = accounts ?? Accounts(keyring: self.viewers.keyring, clients: trustedProxies)
        self.degradedSize = degradedSize
        access = AccessControl(privateImages: gallery.privateImages, captions: gallery.captions, keyring: self.viewers.keyring,
                               adminToken: self.viewers.adminToken ?? uploads.token, accounts: self.accounts)
        let formatEncodings = FormatTileEncodings()
        let sourcePasses = SourceTilePasses()
        let previewEncodings = FormatTileEncodings(name: "avif-previews", encoders: 1, capacity: 64)
        Self.registerGauges(of: formatEncodings, sourcePasses, previewEncodings, in: operations.metrics)
        for queue in [formatEncodings.queue, sourcePasses.queue, previewEncodings.queue, iiif.tileWrites.queue] {
            operations.adopt(queue)
        }
        pyramidFiles = OpenFileCache(capacity: openFiles)
        pyramidBytes = FileBytesCache(capacity: pyramidCacheBytes)
        Self.registerGauges(of: pyramidBytes, in: operations.metrics)
        derivedFormats = DerivedFormats(store: store, files: pyramidFiles, memory: pyramidBytes,
                                        jpegQuality: iiif.jpegQuality, encodings: formatEncodings,
                                        passes: sourcePasses, previews: previewEncodings)
        // Bounded like the pyramid bytes it shares; an entry per 2 KB of them at most (tiles are larger).
        hotTiles = pyramidCacheBytes > 0 && hotTileAnswers
            ? HotResponses(maxEntries: min(1 << 18, max(1024, pyramidCacheBytes / 2048)), maxBytes: pyramidCacheBytes) : nil
        // A retired key's signed URLs stop opening anything: verified again (and refused), and nothing kept.
        // Weak: the access control holds the keyring, and a strong capture would keep both (and the catalog's
        // descriptors) after the service stops.
        self.viewers.keyring.onRetired { [weak hotTiles, weak access] in
            access?.forgetVerified()
            hotTiles?.dropExpiring()
        }
        if let hotTiles {
            Self.registerGauges(of: hotTiles, in: operations.metrics)
            library.onChange { [weak hotTiles] ids in ids.forEach { hotTiles?.drop(group: $0) } }
            // A file the sidecar now makes private (or public) drops what is kept for it, before another
            // request can be answered from memory under its old rule.
            gallery.captions.onChange { [weak hotTiles, weak library] old, new in
                let changed = Set(old.entries.keys).union(new.entries.keys).filter { old.access(forFile: $0) != new.access(forFile: $0) }
                guard !changed.isEmpty else { return }
                guard let library else { return }
                library.map { (id: $0.id, fileName: $0.fileName) }.filter { changed.contains($0.fileName) }
                    .forEach { hotTiles?.drop(group: $0.id) }
            }
        }
        self.operations = operations
        self.iiif = iiif
        self.library = library
        self.store = store
        self.publicFolder = publicFolder
        self.corsOrigin = corsOrigin
        self.galleryData = gallery
        self.uploads = uploads
    }

    /// What the in-memory pyramid files cost and bought, read at each scrape.
    private static func registerGauges(of cache: FileBytesCache, in metrics: Metrics) {
        metrics.register(Gauge("tilescope_decoded_source_tiles_bytes",
                               help: "Bytes of decoded source tiles held for regions of sources served directly (at most --decoded-tile-cache-mb).") {
            Double(DecodedSourceTiles.shared.bytes)
        })
        metrics.register(Gauge("tilescope_pyramid_memory_bytes", help: "Bytes of pyramid files (tiles, descriptors, previews) held in memory.") {
            [weak cache] in Double(cache?.counts.bytes ?? 0)
        })
        metrics.register(Gauge("tilescope_pyramid_memory_lookups",
                               help: "Pyramid file lookups since start, answered from memory (hit) or from disk (miss).") {
            [weak cache] in
            let counts = cache?.counts ?? (bytes: 0, entries: 0, hits: 0, misses: 0)
            return [(labels: [("result", "hit")], value: Double(counts.hits)),
                    (labels: [("result", "miss")], value: Double(counts.misses))]
        })
    }

    /// What the hot tile answers hold and bought, read at each scrape.
    private static func registerGauges(of hot: HotResponses, in metrics: Metrics) {
        metrics.register(Gauge("tilescope_hot_tiles_bytes", help: "Bytes of tile answers kept for answering without routing (shared with the pyramid memory).") {
            [weak hot] in Double(hot?.counts.bytes ?? 0)
        })
        metrics.register(Gauge("tilescope_hot_tiles_answered", help: "Tile requests answered from kept answers, without routing, since start.") {
            [weak hot] in Double(hot?.counts.hits ?? 0)
        })
    }

    /// The tiles being made behind the reply, read at each scrape.
    private static func registerGauges(of encodings: FormatTileEncodings, _ passes: SourceTilePasses,
                                       _ previews: FormatTileEncodings, in metrics: Metrics) {
        metrics.register(Gauge("tilescope_format_tiles_pending",
                               help: "AVIF Deep Zoom tiles and previews waiting or being made behind a JPEG answer.") {
            [weak encodings, weak passes, weak previews] in
            Double((encodings?.counts.pending ?? 0) + (passes?.counts.pending ?? 0) + (previews?.counts.pending ?? 0))
        })
        metrics.register(Gauge("tilescope_format_tiles_encoded",
                               help: "AVIF Deep Zoom tiles and previews made behind a JPEG answer since start (done), or dropped for a full queue.") {
            [weak encodings, weak passes, weak previews] in
            let none = (pending: 0, running: 0, dropped: 0, done: 0)
            let counts = encodings?.counts ?? none, previewCounts = previews?.counts ?? none
            let deepest = passes?.counts ?? (pending: 0, dropped: 0, done: 0)
            return [(labels: [("result", "done")], value: Double(counts.done + deepest.done + previewCounts.done)),
                    (labels: [("result", "dropped")], value: Double(counts.dropped + deepest.dropped + previewCounts.dropped))]
        })
    }

    public var hotResponses: HotResponses? { hotTiles }

    public func completedHot(_ exchange: HotExchange) {
        operations.completedHot(exchange)
    }

    static let maxPathBytes = 2048

    public func handle(_ request: Request) -> Reply {
        switch route(request) {
        case .now(let response): return .now(decorate(response))
        case .later(let work): return .later { [self] in decorate(work()) }
        case .costly(var work):
            let make = work.make
            work.make = { [self] in decorate(make()) }
            return .costly(work)
        }
    }

    private func route(_ request: Request) -> Reply {
        do {
            guard request.rawPath.utf8.count <= Self.maxPathBytes else {
                throw APIError(414, "uri_too_long", "the path is longer than \(Self.maxPathBytes) bytes")
            }
            if request.rawPath == "*" { return .now(try serverWideOptions(request)) }
            guard var segments = request.pathSegments else {
                guard request.rawPath.hasPrefix("/") else {
                    throw APIError.badRequest("the request target must be a path starting with / (or an absolute http URL)")
                }
                throw APIError.badRequest("the URL has a malformed percent-escape")
            }
            var request = request, token: SignedToken?
            if segments.first == AccessControl.signedSegment, request.method != "OPTIONS" {
                (request, segments, token) = try access.mounted(request, segments: segments)
            }
            let endpoint = try Endpoint.parse(segments)
            if request.method == "OPTIONS" { return .now(preflight(endpoint)) }
            guard endpoint.allowedMethods.contains(request.method) else {
                throw APIError.methodNotAllowed(request.method, allowed: endpoint.allowedMethods + ["OPTIONS"])
            }
            if token != nil, !Self.readsOnly(endpoint, request.method) {
                throw APIError(403, "signed_read_only",
                               "a signed URL opens images for reading and rating; uploads, deletions and signing take the admin token at the plain path")
            }
            let admission = try admit(endpoint, request, token: token)
            let reply = try dispatch(endpoint, request)
            return admission == .open ? reply : Self.adjusted(reply, for: admission)
        } catch {
            return .now(APIError(error).response)
        }
    }

    /// How the request may see the image its endpoint is about (`AccessControl`): 401 for a private image
    /// without a credential for it, before any route reads anything of it. An unknown id is the route's 404.
    private func admit(_ endpoint: Endpoint, _ request: Request, token: SignedToken?) throws -> Admission {
        guard let id = endpoint.imageID, let record = library.record(id) else {
            return token.map { .signed($0, mount: request.mountPath) } ?? .open
        }
        do {
            return try access.admit(id: id, fileName: record.fileName, request, token: token)
        } catch var refusal as APIError where token == nil {
            // Say how to get in: the image's IIIF Authorization Flow 2.0 services (`AuthServices`).
            refusal.service = authProbe(for: record, request).map { [$0] }
            throw refusal
        }
    }

    /// What a signed URL may do: read, ask the viewport API, rate.
    private static func readsOnly(_ endpoint: Endpoint, _ method: String) -> Bool {
        switch (endpoint, method) {
        case (_, "GET"), (_, "HEAD"), (.viewport, "POST"), (.rating, "PUT"), (.rating, "DELETE"): return true
        default: return false
        }
    }

    /// `reply` with its response's caching made to fit how the image was opened (`AccessControl.adjust`).
    private static func adjusted(_ reply: Reply, for admission: Admission) -> Reply {
        switch reply {
        case .now(var response):
            AccessControl.adjust(&response, for: admission)
            return .now(response)
        case .later(let work):
            return .later {
                var response = work()
                AccessControl.adjust(&response, for: admission)
                return response
            }
        case .costly(var work):
            let make = work.make
            work.make = {
                var response = make()
                AccessControl.adjust(&response, for: admission)
                return response
            }
            return .costly(work)
        }
    }

    private func dispatch(_ endpoint: Endpoint, _ request: Request) throws -> Reply {
        switch endpoint {
        case .signedURLs(let id): return .now(try signedURLs(id, request))
        case .imageList:
            guard request.method != "POST" else { throw APIError(500, "internal", "uploads are streamed, never buffered") }
            return .now(try imageList(request))
        case .image(let id):
            return request.method == "DELETE" ? try deleteImage(id, request) : .now(try image(id, request))
        case .rating(let id): return try rate(id, request)
        case .job(let id): return .now(try job(id, request))
        case .deepZoomDescriptor(let id): return try descriptor(id, request)
        case let .deepZoomTile(id, level, column, row):
            let generation = hotTiles?.generation  // before the version is read: see HotResponses
            let key = hotTileKey(id, level: level, column: column, row: row, request, generation ?? 0)
            return try tile(id, level: level, column: column, row: row, request) { response in
                if generation != nil, response.status == 200, response.header("Cache-Control") == HTTPCaching.immutable {
                    response.reuse = key
                }
            }
        case let .deepZoomFormatTile(id, level, column, row, format):
            return try formatTile(id, level: level, column: column, row: row, format: .offered(format), request)
        case let .deepZoomVersionedTile(id, version, level, column, row, format) where format != "jpeg":
            return try formatTile(id, level: level, column: column, row: row, format: .offered(format), version: version,
                                  request)
        case let .deepZoomVersionedTile(id, version, level, column, row, _):
            let generation = hotTiles?.generation  // before the version is read: see HotResponses
            let key = hotVersionedTileKey(id, version: version, level: level, column: column, row: row, request,
                                          generation ?? 0)
            return try versionedTile(id, version: version, level: level, column: column, row: row, request) { response in
                if generation != nil, response.status == 200 { response.reuse = key }
            }
        case .preview(let id): return try preview(id, request)
        case let .associatedImage(id, name): return try associatedImage(id, name: name, request)
        case let .betweenTile(id, level, step, column, row, format):
            return try betweenTile(id, level: level, step: step, column: column, row: row, format: format, request)
        case .previewFormat(let id, let format):
            guard let format = DeepZoomTileFormat(fileExtension: format) else {
                throw APIError.notFound("\(format.uppercased()) previews are not offered here (libvips has no encoder for them)")
            }
            return try previewFormat(id, format: format, request)
        case .staticFile(let path): return .now(try staticFile(path, request))
        case .health: return .now(health(request))
        case .readiness: return .now(readiness(request))
        case .metrics: return .now(metricsExposition(request))
        case .openAPI: return .now(try openAPI(request))
        case .viewport(let id): return .now(try viewport(id, request))
        case .gallery: return .now(try gallery(request))
        case .iiifBase(let id): return .now(try iiifRedirect(id, request))
        case .iiifInfo(let id): return try iiifInfo(id, request)
        case let .iiifImage(id, region, size, rotation, qualityAndFormat):
            return try iiifImage(id, region: region, size: size, rotation: rotation, qualityAndFormat: qualityAndFormat, request)
        case .iiif2Base(let id): return .now(try iiif2Redirect(id, request))
        case .iiif2Info(let id): return try iiif2Info(id, request)
        case let .iiif2Image(id, region, size, rotation, qualityAndFormat):
            return try iiif2Image(id, region: region, size: size, rotation: rotation, qualityAndFormat: qualityAndFormat, request)
        case .presentationManifest(let id): return .now(try presentationManifest(id, request))
        case .presentationGallery: return .now(try presentationGallery(request))
        case .presentationCollection: return .now(try presentationCollection(request))
        case .session: return .now(try session(request))
        case .login: return request.method == "POST" ? try signIn(request) : .now(try loginPage(request))
        case .logout: return request.method == "POST" ? try signOut(request) : .now(try logoutPage(request))
        case .accessToken: return .now(try accessTokenPage(request))
        case .externalAccess: return .now(try externalAccessPage(request))
        case .probe(let id): return .now(try probe(id, request))
        case .degraded(let id): return try degraded(id, request)
        }
    }

    /// Metrics and the access log, once the response has gone out.
    public func completed(_ exchange: CompletedExchange) {
        operations.completed(exchange)
    }

    /// `OPTIONS *`: what the server as a whole allows (RFC 9110 9.3.7). `*` means nothing to other methods.
    private func serverWideOptions(_ request: Request) throws -> Response {
        guard request.method == "OPTIONS" else {
            throw APIError.badRequest("the request target * is only for OPTIONS")
        }
        return Response(status: 204, headers: [("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS")])
    }

    private func preflight(_ endpoint: Endpoint) -> Response {
        Response(status: 204, headers: [
            ("Access-Control-Allow-Methods", (endpoint.allowedMethods + ["OPTIONS"]).joined(separator: ", ")),
            ("Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Disposition, If-None-Match, X-CSRF-Token"),
            ("Access-Control-Max-Age", "86400"),
        ])
    }

    /// Headers every response carries. Handlers never set these, so they are appended
    /// without a lookup (this runs on every tile). Uploads call it for the responses they send.
    func decorate(_ response: consuming Response) -> Response {
        // Consumed, not copied: the header array is appended to in place, not copied on write.
        var response = response
        // One growth for these and the server's Server-Timing, not three: an array of name-value tuples
        // grows through run-time type lookups (about 470 instructions each time).
        response.headers.reserveCapacity(response.headers.count + 6)
        response.headers.append(("Access-Control-Allow-Origin", corsOrigin))
        response.headers.append(("Access-Control-Expose-Headers", "ETag, Server-Timing, Retry-After, Location, Link"))
        response.headers.append(("Timing-Allow-Origin", corsOrigin))
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        if corsOrigin != "*" { response.headers.append(("Vary", "Origin")) }
        return response
    }

    // MARK: - Lookups shared by the routes

    /// The image's record, or 404.
    func record(_ id: String) throws -> ImageRecord {
        guard let record = library.record(id) else { throw APIError.notFound("no image with id '\(id.prefix(80))'") }
        return record
    }

    /// The image's published pyramid, or the error that says why there is none.
    func readyImage(_ id: String) throws -> (ImageRecord, PyramidManifest) {
        let record = try record(id)
        switch record.status {
        case .ready(let manifest): return (record, manifest)
        case .queued: throw APIError.building(id, percent: 0, retryAfter: 5)
        case .building(let progress): throw APIError.building(id, percent: progress.percent, retryAfter: progress.etaSeconds)
        case .failed(let reason): throw APIError(404, "failed", "image \(id) could not be built: \(reason)")
        }
    }
}
