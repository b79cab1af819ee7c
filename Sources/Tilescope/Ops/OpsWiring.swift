import HTTPServer

/// Connects the service's parts to its operations: the gauges read at each scrape and the
/// readiness checks of the data folder. (Features add their own checks and caches too.)
enum OpsWiring {
    static func install(_ operations: Operations, service: TilescopeService) {
        let metrics = operations.metrics
        // Weak: the server owns the app, which owns `operations`, which owns these closures.
        metrics.register(Gauge("tilescope_http_open_connections", help: "TCP connections open to the server.") {
            [weak server = service.server] in Double(server?.openConnectionCount ?? 0)
        })
        metrics.register(Gauge("tilescope_http_guard_closed_connections",
                               help: "Connections closed since start for not sending a request head within --header-timeout (header_timeout) or to make room at --max-connections (room), by reason.") {
            [weak server = service.server] in
            let counts = server?.guardCounts ?? (headerTimeouts: 0, evictions: 0)
            return [(labels: [("reason", "header_timeout")], value: Double(counts.headerTimeouts)),
                    (labels: [("reason", "room")], value: Double(counts.evictions))]
        })
        metrics.register(Gauge("tilescope_http_requests_in_flight", help: "Requests received and not yet completed.") {
            [weak server = service.server] in Double(server?.inFlightCount ?? 0)
        })
        registerRenderGauges(metrics, server: service.server)
        metrics.register(Gauge("tilescope_pyramid_builds_queued", help: "Pyramid builds waiting for a builder.") {
            [weak builds = service.builds] in Double(builds?.counts.queued ?? 0)
        })
        metrics.register(Gauge("tilescope_pyramid_builds_running", help: "Pyramid builds in progress.") {
            [weak builds = service.builds] in Double(builds?.counts.running ?? 0)
        })
        metrics.register(Gauge("tilescope_images", help: "Images in the library, by status (building, ready, failed).") {
            [weak library = service.library] in
            let records = library?.all ?? []
            return ["building", "ready", "failed"].map { status in
                (labels: [("status", status)], value: Double(records.filter { $0.status.name == status }.count))
            }
        })

        metrics.register(Gauge("tilescope_library_full_scans", help: "Full scans of the images folder completed since start (0 while a restart still serves from the catalog alone).") {
            [weak sync = service.sync] in Double(sync?.fullScansCompleted ?? 0)
        })

        metrics.register(Gauge("tilescope_replica_info", help: "Always 1; the replica label names this server among replicas (--replica-id).") {
            [replica = service.replica] in [(labels: [("replica", replica)], value: 1)]
        })

        let readiness = operations.readiness
        if let probe = service.databaseProbe {
            // Throttled: /readyz is public, and a query per request would let anyone load the database.
            readiness.add(Readiness.Check("database", run: probe).throttled(interval: 1))
        }
        // A first start answers while its first scan lists the folder: a load balancer should prefer a
        // replica whose list is whole, a client talking to this one directly gets what is found so far.
        readiness.add(Readiness.Check("library") { [weak service] in
            guard let service, service.firstScanUnderWay.load(ordering: .relaxed) else { return nil }
            return "first scan of the images folder under way: \(service.library.count) images listed so far"
        })
        readiness.add(Readiness.writableFolder("data_folder_writable", path: service.config.dataFolder))
        if let files = service.store as? FilePyramidStore {
            readiness.add(Readiness.existingFolder("pyramid_store", path: files.pyramidsFolder))
        }
        if let objects = service.store as? S3PyramidStore { registerObjectStore(objects, metrics: metrics, readiness: readiness) }
        if let bucket = service.scanner.bucket {
            // The last listing's outcome (each --rescan pass lists): the check never waits for the store.
            readiness.add(Readiness.Check("images_bucket") { [weak bucket] in bucket?.unreachableReason })
            metrics.register(Gauge(counter: "tilescope_images_bucket_list_requests_total", help: "ListObjectsV2 pages asked of the images bucket since start (each --rescan pass lists it whole).") {
                [weak bucket] in Double(bucket?.requestCounts.listRequests ?? 0)
            })
            metrics.register(Gauge(counter: "tilescope_images_bucket_downloads_total", help: "Sources downloaded from the images bucket for their builds since start.") {
                [weak bucket] in Double(bucket?.requestCounts.downloads ?? 0)
            })
            metrics.register(Gauge(counter: "tilescope_images_bucket_range_requests_total", help: "Ranged GETs of sources served from their own levels, read by ranges from the images bucket, since start.") {
                [weak bucket] in Double(bucket?.requestCounts.rangeRequests ?? 0)
            })
            metrics.register(Gauge(counter: "tilescope_images_bucket_range_bytes_total", help: "Bytes those ranged GETs brought since start.") {
                [weak bucket] in Double(bucket?.requestCounts.rangeBytes ?? 0)
            })
            metrics.register(Gauge(counter: "tilescope_images_bucket_range_failures_total", help: "Ranged GETs of the images bucket that the store failed since start.") {
                [weak bucket] in Double(bucket?.requestCounts.rangeFailures ?? 0)
            })
            metrics.register(Gauge(counter: "tilescope_images_bucket_download_failures_total", help: "Downloads from the images bucket that the store failed since start (retried later).") {
                [weak bucket] in Double(bucket?.requestCounts.downloadFailures ?? 0)
            })
        }
    }

    /// An object store's reachability in `/readyz` (as last seen: the check never waits for the store) and what
    /// its reads cost in `/metrics`: objects fetched (one per object per replica, however many clients ask),
    /// fetches failed, and the bytes its local disk cache holds.
    private static func registerObjectStore(_ store: S3PyramidStore, metrics: Metrics, readiness: Readiness) {
        readiness.add(Readiness.Check("pyramid_store") { [weak store] in store?.unreachableReason })
        readiness.add(Readiness.existingFolder("store_cache", path: store.local.pyramidsFolder))
        metrics.register(Gauge(counter: "tilescope_store_fetches_total", help: "Objects fetched from the pyramid store into the local disk cache since start.") {
            [weak store] in Double(store?.fetchCounts.fetches ?? 0)
        })
        metrics.register(Gauge(counter: "tilescope_store_fetch_failures_total", help: "Fetches from the pyramid store that failed since start (the store down, refusing or answering nonsense).") {
            [weak store] in Double(store?.fetchCounts.failures ?? 0)
        })
        metrics.register(Gauge(counter: "tilescope_store_index_fetches_total", help: "Pack indexes read from the pyramid store since start (once per packed version read here).") {
            [weak store] in Double(store?.indexFetches ?? 0)
        })
        metrics.register(Gauge(counter: "tilescope_store_puts_total", help: "Objects written to the pyramid store since start (packs, their indexes, descriptors, previews, manifests).") {
            [weak store] in Double(store?.puts ?? 0)
        })
        metrics.register(Gauge("tilescope_store_cache_bytes", help: "Bytes of pyramid files fetched from the store kept on the local disk (at most --store-cache-mb).") {
            [weak store] in Double(store?.cache.bytes ?? 0)
        })
        metrics.register(Gauge(counter: "tilescope_store_cache_evictions_total", help: "Files evicted from the store's local disk cache since start.") {
            [weak store] in Double(store?.cache.evictions ?? 0)
        })
    }

    /// The costly class (IIIF renders, tile and preview encodings) per tier of the fair queue: `within` a client's
    /// budget or `over` it. Answers from memory or a file never enter it, so they have no queue to show.
    private static func registerRenderGauges(_ metrics: Metrics, server: Server) {
        func perTier(_ name: String, _ help: String, _ value: @escaping @Sendable (FairQueueCounts, Int) -> Int) {
            metrics.register(Gauge(name, help: help) { [weak server] in
                let counts = server?.costlyCounts ?? FairQueueCounts()
                return [(labels: [("tier", "within_budget")], value: Double(value(counts, 0))),
                        (labels: [("tier", "over_budget")], value: Double(value(counts, 1)))]
            })
        }
        perTier("tilescope_render_queue_waiting", "Costly requests waiting for a render thread, by budget tier.") { $0.waiting[$1] }
        perTier("tilescope_render_running", "Costly requests being made now, by budget tier.") { $0.running[$1] }
        perTier("tilescope_render_admitted", "Costly requests queued (or run at once) since start, by budget tier.") { $0.admitted[$1] }
        perTier("tilescope_render_refused", "Costly requests refused since start (429 over budget, 503 queue full or waited too long), by budget tier.") { $0.refused[$1] }
        metrics.register(Gauge("tilescope_render_refusals", help: "Costly requests refused after they were queued since start: evicted to make room for better ones, or expired after waiting too long.") {
            [weak server] in
            let counts = server?.costlyCounts ?? FairQueueCounts()
            return [(labels: [("reason", "evicted")], value: Double(counts.evicted)),
                    (labels: [("reason", "expired")], value: Double(counts.expired))]
        })
    }
}
