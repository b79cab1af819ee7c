import Catalog
import Foundation
import HTTPServer
import Imaging
import Synchronization

/// `tilescope serve`: wires the store, the library, the builds and the HTTP server,
/// and runs until SIGINT or SIGTERM.
public final class TilescopeService: @unchecked Sendable {
    public let config: ServeConfig
    public let store: any PyramidStore
    public let library = ImageLibrary()
    public let builds: BuildQueue
    public let scanner: FolderScanner
    public let ratings: any RatingStore
    /// This server's name among replicas (logs, metrics, build leases).
    public let replica: String
    /// Nil when the catalog database answers, else why not (PostgreSQL only).
    let databaseProbe: (@Sendable () -> String?)?
    public let captions: CaptionsCache
    /// Every scan goes through here (with uploads and deletions), never `scanner` directly.
    public let sync: LibrarySync
    /// The periodic folder scan, from `start` to `stop`.
    private var rescan: PeriodicTask?
    /// The sweep of abandoned uploads in the object store (`--store s3://` only), from `start` to `stop`.
    private var storeSweep: PeriodicTask?
    #if canImport(Glibc)
    /// Looks at the folder as inotify reports changes, from `start` to `stop` (nil without inotify).
    private var folderWatch: FolderWatch?
    #endif
    /// True from a first start (nothing remembered in the catalog) until its first scan is done:
    /// the server answers meanwhile, /readyz says the library is still being scanned.
    let firstScanUnderWay = Atomic<Bool>(false)
    public let gallery: Gallery
    public let server: Server
    public let imagesFolder: String
    public let operations: Operations
    /// What to show without an images folder (the executable's built-in gallery); nil: none.
    let demo: (any DemoContent)?

    public init(_ config: ServeConfig, demo: (any DemoContent)? = nil) throws {
        guard !config.isDemo || demo != nil else {
            throw UsageError("this build has no demo gallery: give an images folder with --images")
        }
        self.config = config
        self.demo = demo
        // The contract a running server sends at /openapi.json: a missing resource stops the start, not a request.
        _ = try OpenAPIDocument.load()
        let descriptors = DescriptorBudget(limit: Self.raiseDescriptorLimit())
        try Vips.start()
        let catalog = try CatalogStores.open(config)
        replica = catalog.replica
        databaseProbe = catalog.probe
        if !config.databaseURL.isEmpty { Log.replica = catalog.replica }
        if config.storeURL.isEmpty {
            store = try FilePyramidStore(dataFolder: config.dataFolder, stagingName: catalog.stagingName)
        } else {
            let location = try StoreLocation(url: config.storeURL, endpoint: config.storeEndpoint, region: config.storeRegion,
                                             pathStyle: config.storePathStyle, environment: ProcessInfo.processInfo.environment)
            store = try S3PyramidStore(location: location, dataFolder: config.dataFolder, stagingName: catalog.stagingName,
                                       cacheBytes: config.storeCacheMegabytes << 20, packBytes: config.storePackMegabytes << 20)
        }
        let bucket = try Self.imagesBucket(config, store: store)
        // A bucket is named without its URL's query (the endpoint) in logs and records.
        imagesFolder = config.isDemo ? config.dataFolder + "/demo-images" : bucket?.location ?? config.imagesFolder
        // A bucket's sidecars (captions, rules) are read from the data folder's `captions/`: its keys are never local paths.
        let sidecarFolder = bucket == nil ? imagesFolder : config.dataFolder + "/captions"
        let servingRules = SourceServingRules(imagesFolder: sidecarFolder, setting: config.pyramidalSources, log: Log.info)
        let operations = Operations(accessLog: config.quiet ? nil : AccessLog(format: config.logFormat))
        self.operations = operations
        ratings = catalog.ratings
        let failures = catalog.failures
        builds = BuildQueue(store: store, library: library, builder: PyramidBuilder(quality: config.quality, background: config.background),
                            concurrency: config.buildConcurrency, expressPixels: config.expressBuildPixels,
                            failures: failures, leases: catalog.leases, log: Log.info,
                            finished: { operations.metrics.recordBuild(outcome: $0, seconds: $1) })
        scanner = FolderScanner(folder: imagesFolder, store: store, library: library, builds: builds,
                                identities: catalog.identities,
                                limits: SourceLimits(maxPixels: config.maxPixels,
                                                     pyramidsExempt: { servingRules.rule(forFile: $0).mode != .build }),
                                settling: SettlingFiles(interval: config.settleSeconds), failures: failures, bucket: bucket)
        var download: SourceDownload?
        if let bucket {
            download = try SourceDownload(bucket: bucket, dataFolder: config.dataFolder,
                                              limits: SourceLimits(maxPixels: config.maxPixels))
            download?.removeAbandoned()
            builds.sourceDownload = download
        }
        captions = CaptionsCache(imagesFolder: sidecarFolder)
        sync = LibrarySync(scanner: scanner, store: store, ratings: ratings, captions: captions,
                           catalog: catalog.images)
        gallery = Gallery(library: library, ratings: ratings, captions: captions,
                          privateImages: try PrivateImages(parsing: config.privateImages))
        let uploads = Uploads(token: AdminToken(config.adminToken), maxBytes: config.maxUploadBytes,
                              maxPixels: config.maxPixels, sync: sync, library: library, stagingFolder: download?.folder)
        let proxies = (try? TrustedProxies(parsing: config.trustedProxies)) ?? .none
        let viewers = Viewers(policy: config.ratings, keyring: try ViewerKeyring(store: catalog.viewerKeys),
                              adminToken: AdminToken(config.adminToken), clients: proxies)
        let users = config.usersFile.isEmpty ? Users.none : try Users(path: config.usersFile)
        let accounts = Accounts(users: users, store: catalog.sessions, keyring: viewers.keyring, clients: proxies,
                                trustedHeader: config.authHeader)
        if !config.authHeader.isEmpty, config.trustedProxies.isEmpty {
            Log.info("--auth-header without --trusted-proxies: the header is never trusted, nobody is signed in by it")
        }
        if config.ratings == .admins && config.adminToken == nil {
            Log.info("--ratings admins without an admin token: nobody can rate")
        }
        let app = TilescopeApp(library: library, store: store, publicFolder: config.publicFolder,
                               corsOrigin: config.corsOrigin, operations: operations,
                               iiif: IIIFService(publicURL: config.publicURL, cacheBytes: config.iiifCacheMegabytes << 20,
                                                 jpegQuality: config.quality, background: config.background,
                                                 rights: config.iiifRights,
                                                 attribution: config.iiifAttribution,
                                                 collectionPageSize: config.iiifCollectionPageSize),
                               gallery: gallery, uploads: uploads, openFiles: descriptors.openFiles,
                               pyramidCacheBytes: config.pyramidCacheMegabytes << 20,
                               hotTileAnswers: config.hotTileAnswers,
                               trustedProxies: proxies, viewers: viewers, accounts: accounts,
                               degradedSize: config.privatePreviewSize)
        app.derivedFormats.follow(builds)
        if let bucket { app.directSources.bucket = (bucket, RangeBlocks()) }
        DecodedSourceTiles.shared.limit = config.decodedTileCacheMegabytes << 20
        builds.directPublication = DirectPublication(store: store, sources: app.directSources, rules: servingRules,
                                                     quality: config.quality)
        if config.adminToken != nil, bucket == nil, !Uploads.canWrite(imagesFolder) {
            Log.info(Uploads.readOnlyMessage)
        }
        let connectionLimit = descriptors.connections(wanted: config.connectionLimit)
        if connectionLimit < config.connectionLimit {
            Log.info("serving at most \(connectionLimit) connections, not \(config.connectionLimit): the open-files limit is \(descriptors.limit)")
        }
        var options = ServerOptions(
            host: config.host, port: config.port, pollThreads: config.pollThreads, workerThreads: config.workerThreads,
            connectionLimit: connectionLimit, connectionTimeout: config.connectionTimeout,
            headerTimeout: config.headerTimeout)
        var costly = options.costlyLimits
        costly.pixelsPerSecond = Double(config.renderBudgetMegapixels) * 1_000_000
        costly.burstPixels = Double(config.renderBurstMegapixels) * 1_000_000
        options.costly = costly
        server = Server(options: options, handler: app)
        OpsWiring.install(operations, service: self)
    }

    /// Connections and cached tile descriptors each hold a file descriptor; the usual soft
    /// limit of 1024 is too low for that, the hard limit (often far higher) is not. Returns the
    /// soft limit in force afterwards.
    static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return min(1 << 20, Int(clamping: limit.rlim_cur))  // RLIM_INFINITY is the largest value
    }

    /// Starts listening and keeps the library in step with the folder.
    ///
    /// It listens at once. With a catalog that remembers the last run, the library is restored from
    /// it and served, and the first full scan runs in the background; on a first start (nothing
    /// remembered) the first scan runs in the background too, listing files in batches as it goes.
    /// Changes are watched for from before that scan, so none is missed (docs/gallery-scale.md).
    public func start() throws {
        if config.isDemo, let demo {
            try FileManager.default.createDirectory(atPath: imagesFolder, withIntermediateDirectories: true)
            try demo.writeQuickImages(into: imagesFolder)
            scanner.settling.vouchForSources(in: imagesFolder)  // written whole here: no need to wait
        }
        sync.recoverAtStart()
        let changes: any FolderChangeFeed = scanner.bucket != nil ? EveryPass() : Self.watcher(for: imagesFolder)
        let restored = sync.restore()
        if restored == 0 { firstScanUnderWay.store(true, ordering: .relaxed) }
        try server.start()
        Log.info("serving \(library.count) images from \(imagesFolder) at http://\(config.host == "0.0.0.0" ? "localhost" : config.host):\(server.port)/"
                 + (restored > 0 ? " (remembered from the last run; rescanning the folder in the background)"
                                 : " (first scan of the folder under way: images are listed as they are found)"))
        if restored > 0 { scanInBackground() } else { firstScanInBackground() }
        startRescanning(changes)
        startSweepingStore()
        if config.isDemo && config.demoGigapixel, let demo { startLargeDemoImage(demo) }
    }

    public func stop() {
        operations.readiness.markStopping()
        // Logged once it is true: a client (or a test) that reads this line and then connects must not be served.
        server.stopAccepting()
        Log.info("stopping: no new connections; finishing requests in flight (up to \(config.shutdownSeconds) s)")
        let unfinished = server.stop(deadline: Double(config.shutdownSeconds))
        // Which of the two ended the wait: an operator (and the shutdown tests) can tell a drain from a cut.
        if unfinished == 0 {
            Log.info("requests in flight: all finished")
        } else {
            Log.info("shutdown deadline of \(config.shutdownSeconds) s passed; requests still in flight: \(unfinished) "
                     + "(answered 503 if still on a worker; connections closed)")
        }
        // After the server: no request completes any more. Bounded, as a stuck stdout must not hold the exit.
        if !operations.stopAccessLog(deadline: 2) {
            Log.info("access log: lines left unwritten after 2 s: stdout was not read")
        }
        // The work behind the replies is made again on request: it gets a moment, not the exit's say.
        for (name, left) in operations.stopWorkQueues(deadline: 2) {
            Log.info("work queue \(name): \(left) jobs left unfinished after 2 s (made again when asked for)")
        }
        sync.stopScanning()
        builds.stop()
        rescan?.stop()
        rescan = nil
        storeSweep?.stop()
        storeSweep = nil
        #if canImport(Glibc)
        folderWatch?.stop()
        folderWatch = nil
        #endif
        Log.info("stopped")
    }

    /// The images bucket of `--images s3://...` (nil for a folder). Refused when the pyramid store's keys would
    /// be listed as sources (the same bucket, its prefix inside the images prefix).
    static func imagesBucket(_ config: ServeConfig, store: any PyramidStore) throws -> BucketSources? {
        guard BucketSources.isBucket(config.imagesFolder) else { return nil }
        let bucket = try BucketSources(url: config.imagesFolder, endpoint: config.storeEndpoint, region: config.storeRegion,
                                       pathStyle: config.storePathStyle, environment: ProcessInfo.processInfo.environment,
                                       maxObjectBytes: config.maxUploadBytes, wholeListingSeconds: config.imagesRelistSeconds)
        if let objects = store as? S3PyramidStore,
           bucket.contains(bucket: objects.location.settings.bucket, endpoint: objects.location.settings.hostHeader,
                           prefix: objects.location.prefix) {
            throw UsageError("--store \(config.storeURL.prefix(200)) lies inside --images \(bucket.location): its pyramids would be listed as images; give them prefixes apart")
        }
        return bucket
    }

    /// inotify where the kernel has it, a `stat` of the folder otherwise.
    static func watcher(for folder: String) -> any FolderChangeFeed {
        #if canImport(Glibc)
        if let watcher = InotifyWatcher(folder: folder) { return watcher }
        Log.info("inotify is not available for \(folder): watching the folder's modification time instead")
        #endif
        return DirectoryStampWatcher(folder: folder)
    }

    /// The first full scan after a restore, while requests are already answered from the catalog.
    private func scanInBackground() {
        let sync = self.sync
        let thread = Thread {
            if sync.sync() { Log.info("images folder changed while the server was down: \(sync.folder)") }
            Log.info("first scan of \(sync.folder) done: \(sync.scanner.library.count) images")
        }
        thread.name = "first-scan"
        thread.start()
    }

    /// The first scan of a new data folder, while requests are already answered: files are listed in
    /// batches as they are looked at (`LibrarySync.firstScan`).
    private func firstScanInBackground() {
        let sync = self.sync
        let thread = Thread { [self] in
            let started = ProcessInfo.processInfo.systemUptime
            var lastReport = started
            let done = sync.firstScan { listed in
                let now = ProcessInfo.processInfo.systemUptime
                guard now - lastReport >= 10 else { return }
                lastReport = now
                Log.info("first scan of \(sync.folder): \(listed) images listed so far")
            }
            guard done else { return }  // stopped: the next start goes on from what was saved
            firstScanUnderWay.store(false, ordering: .relaxed)
            Log.info("first scan of \(sync.folder) done: \(sync.scanner.library.count) images in "
                     + String(format: "%.1f s", ProcessInfo.processInfo.systemUptime - started))
        }
        thread.name = "first-scan"
        thread.start()
    }

    /// The periodic pass, and with inotify the folder watch that looks at new files as they come.
    private func startRescanning(_ changes: any FolderChangeFeed) {
        let sync = self.sync
        var feed: any FolderChangeFeed = changes
        #if canImport(Glibc)
        if let inotify = changes as? InotifyWatcher {
            folderWatch = FolderWatch(inotify, sync: sync)
            // The watch takes the events; the pass looks again at files still settling.
            feed = NoChanges()
        }
        #endif
        rescan = PeriodicTask(name: "rescan", interval: Double(config.rescanSeconds)) { [feed] in
            // Until the first full scan is done, what the watcher saw is covered by that scan.
            guard sync.fullScansCompleted > 0 else { return }
            if sync.sync(feed.takeChanges()) { Log.info("images folder changed: \(sync.folder)") }
        }
    }

    /// With an object store: abandoned uploads are looked for at start and then every half of
    /// `--store-abandoned-after` (between 1 s and 10 minutes: a listing of the whole prefix is not free).
    private func startSweepingStore() {
        guard let objects = store as? S3PyramidStore else { return }
        let seconds = Double(config.storeAbandonedSeconds)
        let library = self.library
        storeSweep = PeriodicTask(name: "store-sweep", interval: min(max(seconds / 2, 1), 600), runsAtOnce: true) {
            // Versions superseded by the one served here go too (a builder that died before its cleanup).
            objects.sweepAbandonedUploads(olderThan: seconds) { id in
                guard let record = library.record(id), case .ready = record.status else { return nil }
                return record.version
            }
        }
    }

    private func startLargeDemoImage(_ demo: any DemoContent) {
        let folder = imagesFolder
        let sync = self.sync
        let thread = Thread {
            do {
                let reported = Atomic<Int>(-10)
                try demo.writeLargeImage(into: folder) { percent in
                    let last = reported.load(ordering: .relaxed)
                    guard percent >= last + 10, reported.compareExchange(
                        expected: last, desired: percent, ordering: .relaxed).exchanged else { return }
                    Log.info("writing the gigapixel demo image: \(percent)%")
                }
                sync.scanner.settling.vouchForSources(in: folder)
                sync.sync()
            } catch {
                Log.error("cannot write the gigapixel demo image: \(error)")
            }
        }
        thread.name = "demo"
        thread.start()
    }
}
