import Catalog
import HTTPServer
import Imaging
import Foundation

/// Everything `tilescope serve` can be told. Each field is a flag and an environment variable.
public struct ServeConfig: PyramidSettings, Sendable {
    public var host = "0.0.0.0"
    public var port = 8080
    /// Empty: serve the demo gallery, generated into the data folder on first run.
    public var imagesFolder = ""
    public var dataFolder = "data"
    public var publicFolder = "Public"
    public var corsOrigin = "*"
    public var pollThreads = ProcessInfo.processInfo.activeProcessorCount
    public var workerThreads = ProcessInfo.processInfo.activeProcessorCount
    public var connectionLimit = 16384
    public var connectionTimeout = 30
    public var headerTimeout = 10
    /// Each client's budget of costly work (renders, encodings), in millions of pixels decoded plus encoded a
    /// second, and what it may spend at once (`FairQueue`).
    public var renderBudgetMegapixels = Int(ServerOptions.defaultPixelsPerSecond / 1_000_000)
    public var renderBurstMegapixels = Int(ServerOptions.defaultBurstPixels / 1_000_000)
    /// Proxies whose `X-Forwarded-For` names the client a budget is kept for; empty: none.
    public var trustedProxies = ""
    public var quality = 85
    public var background = Background.white
    public var buildConcurrency = 1
    /// Whether sources that already are pyramids are served from their own levels (`auto`) or built (`build`).
    public var pyramidalSources = PyramidalSourcesMode.auto
    /// Images of at most this many pixels also have a builder of their own (0: none).
    public var expressBuildPixels = 16_777_216
    public var rescanSeconds = 2
    /// An images bucket of several listing pages is listed whole this often; passes in between list what was added.
    public var imagesRelistSeconds = BucketListing.defaultWholeSeconds
    /// A folder file is built only once its size and mtime have not changed for this long.
    public var settleSeconds = 2.0
    public var shutdownSeconds = 10
    public var demoGigapixel = true
    /// Unset: uploads and deletions are refused (403).
    public var adminToken: String?
    /// Who may write ratings; reading them is open to all.
    public var ratings = RatingPolicy.anyone
    /// Patterns of file names whose images are private (a sidecar's `access` wins); empty: none.
    public var privateImages = ""
    /// The users file (`name:role:hash` a line, docs/access.md); empty: nobody signs in with a password.
    public var usersFile = ""
    /// A header a trusted proxy sets to the signed-in user's name (IIIF Auth's `external` profile); empty: none.
    public var authHeader = ""
    /// A private image's degraded tier, open to all: its longest side in pixels; 0: none.
    public var privatePreviewSize = 0
    public var maxUploadBytes = 1 << 30
    public var maxPixels = 2_000_000_000
    public var quiet = false
    public var logFormat = AccessLog.Format.common
    /// Base URL clients reach the server at (IIIF ids); empty: from each request's headers.
    public var publicURL = ""
    public var iiifCacheMegabytes = 256
    /// Pyramid files (tiles, descriptors, previews) held in memory, so hot tiles cost no disk system call.
    public var pyramidCacheMegabytes = 64
    public var decodedTileCacheMegabytes = DecodedSourceTiles.defaultLimit >> 20
    /// Repeated versioned tile URLs answered in C inside libmicrohttpd (`HotResponses`); false: every tile
    /// through the Swift path, which is how what the C buys is measured (docs/architecture.md).
    public var hotTileAnswers = true
    /// IIIF Presentation: the licence URI (`rights`) and attribution (`requiredStatement`); empty: none.
    public var iiifRights = ""
    public var iiifAttribution = ""
    public var iiifCollectionPageSize = 100
    /// The catalog: empty for SQLite in the data folder, or a `postgres://` URL shared by replicas.
    public var databaseURL = ""
    /// This replica's name in logs, metrics and build leases; empty: the host name and the process id.
    public var replicaID = ""
    /// Seconds a build lease lasts without renewal before another replica may take the build over.
    public var buildLeaseSeconds = 30
    /// Where pyramids are kept: empty for the data folder, or `s3://bucket/prefix` (docs/object-storage.md).
    public var storeURL = ""
    /// The object store's endpoint (`http(s)://host[:port]`); empty: AWS's for the region. The URL's query wins.
    public var storeEndpoint = ""
    public var storeRegion = "us-east-1"
    /// `http://endpoint/bucket/key` (SeaweedFS, MinIO...) rather than `http://bucket.endpoint/key` (AWS's default).
    public var storePathStyle = true
    /// The local disk cache of files fetched from the object store.
    public var storeCacheMegabytes = 1024
    /// Seconds an upload to the object store may stay unpublished and untouched before it counts as abandoned and
    /// is deleted (`AbandonedUploads`).
    public var storeAbandonedSeconds = 3600
    /// The size a version's tiles are packed into objects at (`PackWriter`).
    public var storePackMegabytes = 1

    public init() {}

    public var isDemo: Bool { imagesFolder.isEmpty }

    public static let settings: [Setting<ServeConfig>] = [
        Setting("--port", env: "TILESCOPE_PORT", default: \.port, "TCP port to listen on (0 picks a free one)") {
            $0.port = try SettingValue.integer($1, "port", in: 0...65535)
        },
        Setting("--host", env: "TILESCOPE_HOST", default: \.host, "IPv4 address to bind") { config, value in
            guard value.split(separator: ".").count == 4, value.split(separator: ".").allSatisfy({ UInt8($0) != nil }) else {
                throw UsageError("host must be an IPv4 address such as 127.0.0.1, not '\(value)'")
            }
            config.host = value
        },
        Setting("--images", env: "TILESCOPE_IMAGES", default: \.imagesFolder, shown: .meaning("(the demo gallery)"),
                "folder of source images, or s3://bucket/prefix[?endpoint=...&region=...&path-style=...] for a bucket's objects (the --store-* settings and credentials as for --store; docs/object-storage.md)") {
            config, value in
            // A bucket is checked at start, where the credentials are read: the URL's form alone is checked here.
            if BucketSources.isBucket(value) {
                config.imagesFolder = value
                return
            }
            guard SettingValue.folderState(value) == .folder else {
                throw UsageError(SettingValue.folderState(value) == .missing
                    ? "images folder '\(value)' does not exist" : "images folder '\(value)' is not a folder (a file is in the way)")
            }
            config.imagesFolder = value
        },
        Setting("--data", env: "TILESCOPE_DATA", default: \.dataFolder, "folder for pyramids, the database and staging") {
            config, value in
            // A missing folder is created at start; something else in its place is a mistake to say now.
            guard SettingValue.folderState(value) != .other else {
                throw UsageError("data folder '\(value)' is not a folder (a file is in the way)")
            }
            config.dataFolder = value
        },
        Setting("--public", env: "TILESCOPE_PUBLIC", default: \.publicFolder, "folder of the browser client") {
            $0.publicFolder = $1
        },
        Setting("--cors-origin", env: "TILESCOPE_CORS_ORIGIN", default: \.corsOrigin, "Access-Control-Allow-Origin value: * or one origin such as https://example.org") {
            config, value in
            guard CORSOrigin.isValid(value) else {
                throw UsageError("cors origin must be * or one origin such as https://example.org:8443, not '\(value.debugDescription.dropFirst().dropLast())'")
            }
            config.corsOrigin = value
        },
        Setting("--public-url", env: "TILESCOPE_PUBLIC_URL", default: \.publicURL, shown: .meaning("(from X-Forwarded-*/Host headers)"),
                "base URL clients use, such as https://example.org/tiles (IIIF ids)") { config, value in
            guard value.hasPrefix("http://") || value.hasPrefix("https://"),
                  !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\"" || $0 == " " || $0 == "?" || $0 == "#" }) else {
                throw UsageError("public URL must be an http:// or https:// URL without query, such as https://example.org/tiles")
            }
            config.publicURL = value
        },
        Setting("--iiif-cache-mb", env: "TILESCOPE_IIIF_CACHE_MB", default: \.iiifCacheMegabytes,
                "megabytes of rendered IIIF images kept in memory (0: none)") {
            $0.iiifCacheMegabytes = try SettingValue.integer($1, "iiif-cache-mb", in: 0...1_000_000)
        },
        Setting("--pyramid-cache-mb", env: "TILESCOPE_PYRAMID_CACHE_MB", default: \.pyramidCacheMegabytes,
                "megabytes of hot pyramid files (tiles) kept in memory (0: none, every tile from its file)") {
            $0.pyramidCacheMegabytes = try SettingValue.integer($1, "pyramid-cache-mb", in: 0...1_000_000)
        },
        Setting("--decoded-tile-cache-mb", env: "TILESCOPE_DECODED_TILE_CACHE_MB", default: \.decodedTileCacheMegabytes,
                "megabytes of decoded source tiles kept in memory for regions of sources served directly (0: none)") {
            $0.decodedTileCacheMegabytes = try SettingValue.integer($1, "decoded-tile-cache-mb", in: 0...1_000_000)
        },
        Setting("--hot-tile-answers", env: "TILESCOPE_HOT_TILE_ANSWERS", default: \.hotTileAnswers,
                "answer repeated versioned tile URLs from memory inside libmicrohttpd, in C (false: all through Swift)") {
            $0.hotTileAnswers = try SettingValue.boolean($1, "hot-tile-answers")
        },
        Setting("--iiif-rights", env: "TILESCOPE_IIIF_RIGHTS", default: \.iiifRights, shown: .meaning("(none)"),
                "licence URI in IIIF manifests' rights, such as http://creativecommons.org/licenses/by/4.0/") { config, value in
            // Presentation 3.0 allows only Creative Commons and RightsStatements.org URIs here.
            let allowed = ["http://creativecommons.org/licenses/", "http://creativecommons.org/publicdomain/",
                           "http://rightsstatements.org/vocab/", "https://creativecommons.org/licenses/",
                           "https://creativecommons.org/publicdomain/", "https://rightsstatements.org/vocab/"]
            guard allowed.contains(where: value.hasPrefix),
                  !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\"" || $0 == " " }) else {
                throw UsageError("IIIF rights must be a Creative Commons or RightsStatements.org URI, "
                    + "such as http://creativecommons.org/licenses/by/4.0/")
            }
            config.iiifRights = value
        },
        Setting("--iiif-attribution", env: "TILESCOPE_IIIF_ATTRIBUTION", default: \.iiifAttribution, shown: .meaning("(none)"),
                "text of IIIF manifests' requiredStatement (Attribution)") { config, value in
            guard value.count <= 1000 else { throw UsageError("IIIF attribution must be at most 1000 characters") }
            config.iiifAttribution = value
        },
        Setting("--iiif-collection-page", env: "TILESCOPE_IIIF_COLLECTION_PAGE", default: \.iiifCollectionPageSize,
                "manifests per page of the IIIF collection") {
            $0.iiifCollectionPageSize = try SettingValue.integer($1, "iiif-collection-page", in: 1...10_000)
        },
        Setting("--threads", env: "TILESCOPE_THREADS", default: \.pollThreads, shown: .meaning("number of cores"), "HTTP poll threads") {
            $0.pollThreads = try SettingValue.integer($1, "threads", in: 1...256)
        },
        Setting("--workers", env: "TILESCOPE_WORKERS", default: \.workerThreads, shown: .meaning("number of cores"), "threads for rendering work") {
            $0.workerThreads = try SettingValue.integer($1, "workers", in: 1...256)
        },
        Setting("--max-connections", env: "TILESCOPE_MAX_CONNECTIONS", default: \.connectionLimit,
                "connections open at once (lowered to fit the open-files limit); when full, the longest-waiting connection without a request is closed") {
            $0.connectionLimit = try SettingValue.integer($1, "max-connections", in: 1...1_000_000)
        },
        Setting("--timeout", env: "TILESCOPE_TIMEOUT", default: \.connectionTimeout, "seconds an idle keep-alive connection stays open") {
            $0.connectionTimeout = try SettingValue.integer($1, "timeout", in: 1...3600)
        },
        Setting("--header-timeout", env: "TILESCOPE_HEADER_TIMEOUT", default: \.headerTimeout,
                "seconds a client has to send a whole request head (slow clients are closed)") {
            $0.headerTimeout = try SettingValue.integer($1, "header-timeout", in: 1...3600)
        },
        Setting("--render-budget", env: "TILESCOPE_RENDER_BUDGET", default: \.renderBudgetMegapixels,
                "each client's budget of renders and encodings, in millions of pixels (decoded plus encoded) a second; beyond it, 429 once its renders wait") {
            $0.renderBudgetMegapixels = try SettingValue.integer($1, "render-budget", in: 1...1_000_000)
        },
        Setting("--render-burst", env: "TILESCOPE_RENDER_BURST", default: \.renderBurstMegapixels,
                "millions of pixels a client may spend at once after a pause") {
            $0.renderBurstMegapixels = try SettingValue.integer($1, "render-burst", in: 1...1_000_000)
        },
        Setting("--trusted-proxies", env: "TILESCOPE_TRUSTED_PROXIES", default: \.trustedProxies, shown: .meaning("(none)"),
                "addresses or blocks of proxies in front (such as 10.0.0.0/8,::1) whose X-Forwarded-For names the client a budget is kept for") {
            config, value in
            do { _ = try TrustedProxies(parsing: value) } catch { throw UsageError("trusted proxies: \(error)") }
            config.trustedProxies = value
        },
    ] + pyramidSettings + [  // --quality and --background, where --help and README list them
        Setting("--build-concurrency", env: "TILESCOPE_BUILD_CONCURRENCY", default: \.buildConcurrency, "pyramids built at once") {
            $0.buildConcurrency = try SettingValue.integer($1, "build-concurrency", in: 1...64)
        },
        Setting("--pyramidal-sources", env: "TILESCOPE_PYRAMIDAL_SOURCES", default: \.pyramidalSources.rawValue,
                "auto: a source that already is a pyramid (tiled pyramidal TIFF, OpenSlide slide, JPEG 2000) is served from its own levels, no build; build: every source is built; direct: served from its own levels, a source that is not a pyramid fails; per file: pyramidal-sources.json in the images folder") {
            config, value in
            guard let mode = PyramidalSourcesMode(rawValue: value) else {
                throw UsageError("pyramidal sources must be auto, build or direct, not '\(value.prefix(40))'")
            }
            config.pyramidalSources = mode
        },
        Setting("--express-build-pixels", env: "TILESCOPE_EXPRESS_BUILD_PIXELS", default: \.expressBuildPixels,
                "images of at most this many pixels also get a builder of their own, so a long build never holds them up (0: none)") {
            $0.expressBuildPixels = try SettingValue.integer($1, "express-build-pixels", in: 0...(1 << 50))
        },
        Setting("--rescan", env: "TILESCOPE_RESCAN_SECONDS", default: \.rescanSeconds, "seconds between images-folder scans") {
            $0.rescanSeconds = try SettingValue.integer($1, "rescan", in: 1...3600)
        },
        Setting("--images-relist", env: "TILESCOPE_IMAGES_RELIST_SECONDS", default: \.imagesRelistSeconds,
                "seconds between whole listings of an images bucket of over 1,000 objects; the passes between list only keys after the last (0: whole at every pass)") {
            $0.imagesRelistSeconds = try SettingValue.integer($1, "images-relist", in: 0...86_400)
        },
        Setting("--settle", env: "TILESCOPE_SETTLE_SECONDS", default: \.settleSeconds,
                "seconds a folder file's size and mtime must stay unchanged before it is built (a copy still arriving)") {
            config, value in
            guard let seconds = Double(value), seconds.isFinite, (0...3600).contains(seconds) else {
                throw UsageError("settle must be a number of seconds from 0 to 3600, not '\(value)'")
            }
            config.settleSeconds = seconds
        },
        Setting("--shutdown-deadline", env: "TILESCOPE_SHUTDOWN_SECONDS", default: \.shutdownSeconds,
                "seconds in-flight requests get after SIGTERM") {
            $0.shutdownSeconds = try SettingValue.integer($1, "shutdown-deadline", in: 0...3600)
        },
        Setting("--log-format", env: "TILESCOPE_LOG_FORMAT", default: \.logFormat,
                "access log on stdout: common (log format) or json (lines)") { config, value in
            guard let format = AccessLog.Format(rawValue: value) else {
                throw UsageError("log format must be common or json, not '\(value)'")
            }
            config.logFormat = format
        },
        Setting("--quiet", env: "TILESCOPE_QUIET", default: \.quiet, "no access log and no informational lines") {
            $0.quiet = try SettingValue.boolean($1, "quiet")
        },
        Setting("--demo-gigapixel", env: "TILESCOPE_DEMO_GIGAPIXEL", default: \.demoGigapixel,
                "include the gigapixel image in the demo gallery") {
            $0.demoGigapixel = try SettingValue.boolean($1, "demo-gigapixel")
        },
        Setting("--admin-token", env: "TILESCOPE_ADMIN_TOKEN", default: \.adminToken, shown: .meaning("(unset: uploads off)"),
                "secret for uploads and deletions (Authorization: Bearer); prefer the variable, flags show in ps") {
            $0.adminToken = $1.isEmpty ? nil : $1
        },
        Setting("--ratings", env: "TILESCOPE_RATINGS", default: \.ratings.rawValue,
                "who may rate: anyone (each browser by its signed cookie), signed-in (users of --users or --auth-header), admins (the admin token or an admin user) or off") {
            config, value in
            guard let policy = RatingPolicy(rawValue: value) else {
                throw UsageError("ratings must be anyone, signed-in, admins or off, not '\(value.prefix(40))'")
            }
            config.ratings = policy
        },
        Setting("--private-images", env: "TILESCOPE_PRIVATE_IMAGES", default: \.privateImages, shown: .meaning("(none)"),
                "file-name patterns, comma-separated (* for all), of images only signed-in users, the admin token or a signed URL open; a captions.json entry's \"access\" wins (docs/access.md)") {
            config, value in
            _ = try PrivateImages(parsing: value)
            config.privateImages = value
        },
        Setting("--users", env: "TILESCOPE_USERS", default: \.usersFile, shown: .meaning("(none)"),
                "the users file: name:role:hash a line, role viewer or admin, a yescrypt or bcrypt hash (tilescope hash-password); signed-in users see private images (docs/access.md)") {
            $0.usersFile = $1
        },
        Setting("--auth-header", env: "TILESCOPE_AUTH_HEADER", default: \.authHeader, shown: .meaning("(none)"),
                "a header a trusted proxy (--trusted-proxies) sets to the signed-in user's name, e.g. X-Remote-User: IIIF Auth's external profile") { config, value in
            guard value.isEmpty || (value.utf8.count <= 64 && value.utf8.allSatisfy({ $0 == 45 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })) else {
                throw UsageError("auth-header must be a header name (letters, digits and '-'), not '\(value.prefix(40))'")
            }
            config.authHeader = value
        },
        Setting("--private-preview-size", env: "TILESCOPE_PRIVATE_PREVIEW_SIZE", default: \.privatePreviewSize,
                "longest side in pixels of a private image's degraded tier, served to anyone at /auth/degraded/{id}.jpeg and named by the IIIF probe; 0: none") {
            $0.privatePreviewSize = try SettingValue.integer($1, "private-preview-size", in: 0...4096)
        },
        Setting("--max-upload-bytes", env: "TILESCOPE_MAX_UPLOAD_BYTES", default: \.maxUploadBytes, shown: .bytes,
                "largest upload body accepted (413 above), and largest object built from an images bucket (listed as failed above, never downloaded)") {
            $0.maxUploadBytes = try SettingValue.integer($1, "max-upload-bytes", in: 1...(1 << 50))
        },
        Setting("--max-pixels", env: "TILESCOPE_MAX_PIXELS", default: \.maxPixels, "most pixels a source may declare: uploads get 422 above, folder files are listed as failed (not a folder pyramid served directly)") {
            $0.maxPixels = try SettingValue.integer($1, "max-pixels", in: 1...(1 << 50))
        },
        Setting("--database", env: "TILESCOPE_DATABASE", default: \.databaseURL, shown: .meaning("(catalog.sqlite in the data folder)"),
                "the catalog: postgres://user@host:port/db to share it between replicas (docs/scale-out.md)") { config, value in
            guard value.isEmpty || value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") else {
                throw UsageError("database must be a postgres:// or postgresql:// URL, not '\(PostgresDatabase.redacted(value))'")
            }
            config.databaseURL = value
        },
        Setting("--replica-id", env: "TILESCOPE_REPLICA_ID", default: \.replicaID, shown: .meaning("(host name-pid)"),
                "this replica's name in logs, metrics and build leases") { config, value in
            guard (1...64).contains(value.utf8.count),
                  value.utf8.allSatisfy({ $0 == 45 || $0 == 46 || $0 == 95 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
            else { throw UsageError("replica-id must be 1 to 64 letters, digits, '-', '_' or '.', not '\(value)'") }
            config.replicaID = value
        },
        Setting("--build-lease", env: "TILESCOPE_BUILD_LEASE_SECONDS", default: \.buildLeaseSeconds,
                "seconds a replica's build lease lasts unrenewed before another replica takes the build over (with --database postgres://)") {
            $0.buildLeaseSeconds = try SettingValue.integer($1, "build-lease", in: 3...3600)
        },
        Setting("--store", env: "TILESCOPE_STORE", default: \.storeURL, shown: .meaning("(the data folder)"),
                "where pyramids are kept: s3://bucket/prefix[?endpoint=...&region=...&path-style=...] for an S3-compatible store, credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN (docs/object-storage.md)") { config, value in
            guard value.isEmpty || StoreLocation.isObjectStore(value) else {
                throw UsageError("store must be s3://bucket[/prefix], not '\(value.prefix(200))'")
            }
            config.storeURL = value
        },
        Setting("--store-endpoint", env: "TILESCOPE_STORE_ENDPOINT", default: \.storeEndpoint, shown: .meaning("(AWS's for the region)"),
                "the object store's http(s)://host[:port], unless --store's URL names one") { config, value in
            config.storeEndpoint = value
        },
        Setting("--store-region", env: "TILESCOPE_STORE_REGION", default: \.storeRegion,
                "the object store's region (signed into every request), unless --store's URL names one") { config, value in
            config.storeRegion = value
        },
        Setting("--store-path-style", env: "TILESCOPE_STORE_PATH_STYLE", default: \.storePathStyle,
                "address the bucket in the path (SeaweedFS, MinIO) rather than in the host name (false: AWS's virtual hosts)") {
            $0.storePathStyle = try SettingValue.boolean($1, "store-path-style")
        },
        Setting("--store-cache-mb", env: "TILESCOPE_STORE_CACHE_MB", default: \.storeCacheMegabytes,
                "megabytes of pyramid files fetched from the object store kept on the local disk (least recently answered go first)") {
            $0.storeCacheMegabytes = try SettingValue.integer($1, "store-cache-mb", in: 16...100_000_000)
        },
        Setting("--store-abandoned-after", env: "TILESCOPE_STORE_ABANDONED_SECONDS", default: \.storeAbandonedSeconds,
                "seconds a version's objects may stay in the object store without pyramid.json and without a new write before they are deleted as an upload that died") {
            $0.storeAbandonedSeconds = try SettingValue.integer($1, "store-abandoned-after", in: 1...2_592_000)
        },
        Setting("--store-pack-mb", env: "TILESCOPE_STORE_PACK_MB", default: \.storePackMegabytes,
                "megabytes of tiles gathered into one object of the object store (a pack; each tile is read back with a ranged GET; 0: one object per tile, as replicas older than packs read them)") {
            $0.storePackMegabytes = try SettingValue.integer($1, "store-pack-mb", in: 0...1024)
        },
    ]
}
