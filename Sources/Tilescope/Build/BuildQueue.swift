import Catalog
import Foundation
import Imaging
import ObjectStore

/// Builds pyramids in the background, smallest image first, a bounded number at a time,
/// so that one huge image neither delays the small ones nor starves tile serving.
///
/// `concurrency` builders take any image, smallest first. One more, the express builder, takes
/// only images of at most `expressPixels`: smallest-first alone cannot help a small image that
/// arrives while a long build holds every builder (a 64-megapixel build held a 16x16 image for
/// its whole duration). Small builds need little memory (dzsave's grows with the width), so the
/// express builder costs a few megabytes and, while it works, a share of one core.
public final class BuildQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [ImageRecord] = []
    private var running = 0
    private var stopping = false
    private let store: any PyramidStore
    private let library: ImageLibrary
    private let builder: PyramidBuilder
    /// See `directPublication`.
    private var direct: DirectPublication?
    /// See `sourceDownload`.
    private var download: SourceDownload?
    private let expressPixels: Int
    private let failures: (any BuildFailureStore)?
    /// Who builds what when replicas share the pyramid store; `LocalBuildLeases` alone.
    private let leases: any BuildLeases
    /// Images another replica is building: watched until their pyramid appears (or the lease lapses).
    private var elsewhere: [String: ImageRecord] = [:]
    private var watching = false
    /// Pyramids (id and version) being built on this replica's builders right now: a watched
    /// image queued again while its build already runs here is not built twice. (A new version
    /// of an image still building is another pyramid: it is built, as before.)
    private var buildingHere: Set<String> = []
    /// Failures so far of each pyramid (`key`) that failed for the machine's reasons, for the backoff.
    private var retries: [String: Int] = [:]
    /// The version of each image already logged as built elsewhere: said once, not at every retry.
    private var announced: [String: String] = [:]
    private let log: @Sendable (String) -> Void
    /// Told how each build ended ("built", "failed" or "discarded") and how long it took.
    private let finished: @Sendable (_ outcome: String, _ seconds: Double) -> Void
    /// Told each manifest this replica publishes (partial ones too), as it is published: what is derived
    /// from a level (the AVIF preview) can be made as soon as that level is out. Set once, by `whenPublished`.
    private var published: (@Sendable (_ id: String, _ version: String, PyramidManifest) -> Void)?

    /// `expressPixels` 0: no express builder. `failures` remembers failed builds (and forgets
    /// them once a file builds) so that an unchanged failed file is not built again at the next start.
    public init(store: any PyramidStore, library: ImageLibrary, builder: PyramidBuilder,
                concurrency: Int, expressPixels: Int = 0, failures: (any BuildFailureStore)? = nil,
                leases: any BuildLeases = LocalBuildLeases(),
                log: @escaping @Sendable (String) -> Void,
                finished: @escaping @Sendable (_ outcome: String, _ seconds: Double) -> Void = { _, _ in }) {
        self.finished = finished
        self.store = store
        self.library = library
        self.builder = builder
        self.expressPixels = max(0, expressPixels)
        self.failures = failures
        self.leases = leases
        self.log = log
        for index in 0..<max(1, concurrency) {
            start(name: "build-\(index)", express: false)
        }
        if self.expressPixels > 0 { start(name: "build-express", express: true) }
    }

    /// Sets what is told of each manifest this replica's builds publish (`published`).
    public func whenPublished(_ observer: @escaping @Sendable (_ id: String, _ version: String, PyramidManifest) -> Void) {
        condition.lock()
        published = observer
        condition.unlock()
    }

    private func start(name: String, express: Bool) {
        // A strong reference: a thread may start after its owner is gone (a server that
        // failed to start, say), and `unowned` then traps. The queue lives until its threads end.
        let thread = Thread { self.run(express: express) }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ record: ImageRecord) {
        condition.lock()
        waiting.removeAll { $0.id == record.id }
        waiting.append(record)
        // Builders wait for different things (any image, or a small one): wake them all.
        condition.broadcast()
        condition.unlock()
    }

    /// Builds queued and running.
    public var counts: (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (waiting.count, running)
    }

    /// No new builds start; a running one finishes in the background (its staging
    /// folder is wiped at the next start if the process ends first).
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func run(express: Bool) {
        while let record = next(express: express) {
            build(record)
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }

    /// The smallest waiting image (the express builder: the smallest of those it may take).
    private func next(express: Bool) -> ImageRecord? {
        condition.lock()
        defer { condition.unlock() }
        func candidates() -> [Int] {
            waiting.indices.filter { !express || pixels(waiting[$0]) <= expressPixels }
        }
        while candidates().isEmpty && !stopping { condition.wait() }
        guard !stopping, let index = candidates().min(by: { pixels(waiting[$0]) < pixels(waiting[$1]) })
        else { return nil }
        running += 1
        return waiting.remove(at: index)
    }

    private func pixels(_ record: ImageRecord) -> Int { record.header?.pixels ?? Int.max }

    private func build(_ record: ImageRecord) {
        let (id, version) = (record.id, record.version)
        guard library.record(id)?.version == version else { return }  // superseded while queued
        let pyramid = Self.key(record)
        condition.lock()
        let alreadyHere = !buildingHere.insert(pyramid).inserted
        if !alreadyHere { elsewhere[id] = nil }
        condition.unlock()
        guard !alreadyHere else { return }
        defer { condition.lock(); buildingHere.remove(pyramid); condition.unlock() }
        guard let (lease, hold) = claim(record) else { return }
        defer { hold.release() }
        // A bucket's TIFF pyramid is served from its own levels too, read by ranges (`BucketObjectRanges`).
        if servedDirectly(record, lease: lease) { return }
        let started = Date()
        log("building \(id) (\(record.fileName))")
        let library = self.library
        library.update(id, version: version) { $0.status = .building(BuildProgress(percent: 0, etaSeconds: 0)) }
        var staging: String?
        let store = self.store
        condition.lock()
        let published = self.published
        condition.unlock()
        var completedHere = false
        let share = BuildShare()
        let download = sourceDownload
        /// A bucket source's local copy while it is built (`SourceDownload`); nil for a folder file.
        var staged: String?
        defer { if let staged { unlink(staged) } }
        let publisher = PartPublisher(store: store, id: id, version: version, fileName: record.fileName,
                                      sourcePath: record.sourcePath, privateCopy: download != nil) { manifest in
            defer { published?(id, version, manifest) }  // once the library says what it serves
            guard manifest.isComplete else {
                let progress = share.published(levels: manifest.levelsReady, of: manifest.pyramid.maxLevel + 1)
                library.update(id, version: version) { record in
                    record.partial = manifest
                    if case .building = record.status { record.status = .building(progress) }
                }
                return
            }
            completedHere = true
            // Done as the last level is published, not when the builder returns (after its write-behind
            // thread's last flush).
            self.log("built \(id): \(manifest.width)x\(manifest.height) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
            self.servePublished(record, manifest, started: started)
        }
        // Where the build's time went, logged after it, so a slow build says which step was slow.
        let phases = BuildPhases()
        do {
            if let download { staged = try download.stage(record) }
            let source = staged ?? record.sourcePath
            let folder = try store.makeStagingFolder(id: id, version: version)
            staging = folder
            _ = try phases.measuring {
                try store.building(into: folder) { passWritten in
                    try builder.build(source: source, into: folder, progress: { progress in
                        let shown = share.passed(progress)
                        library.update(id, version: version) { record in
                            if case .ready = record.status { return }  // the last level is out: no more "building"
                            record.status = .building(shown)
                        }
                    }, passWritten: passWritten, finished: publisher.publish)
                }
            }
            store.discard(stagingFolder: folder)
            staging = nil
            lease.end(published: true)
            // The pass's freed strips would stay in glibc's arenas, resident, until another build reuses them.
            FreedMemory.returnToSystem()
            log("\(id): \(phases.summary)")
        } catch is PartPublisher.SourceChanged {
            if let staging { store.discard(stagingFolder: staging) }
            lease.end(published: false)
            withdraw(id: id, version: version)
            finished("discarded", Date().timeIntervalSince(started))
            log("\(id) changed while building; its new version will be built")
        } catch let error where error is PartPublisher.PublishedElsewhere || store.manifest(id: id, version: version) != nil {
            // The version is published whole (by another process meanwhile, or by this build before
            // whatever it met after): that pyramid is served, not a failure.
            if let staging { store.discard(stagingFolder: staging) }
            guard let manifest = store.manifest(id: id, version: version) else {
                lease.end(published: false)
                watch(record, because: "another process published it while this build ran")
                return
            }
            lease.end(published: true)
            if completedHere {
                log("\(id) is built; what followed its publication failed: \(error)")
                return
            }
            servePublished(record, manifest, started: started)
            log("\(id) was published meanwhile by another process; serving it")
        } catch {
            if let staging { store.discard(stagingFolder: staging) }
            lease.end(published: false)
            withdraw(id: id, version: version)
            let reason = failureReason(record, staged: staged, error)
            library.update(id, version: version) { $0.status = .failed(reason); $0.partial = nil }
            finished("failed", Date().timeIntervalSince(started))
            switch FailureCause.of(error) {
            case .file:
                // libvips's verdict on the file is remembered: not built again until the file changes.
                remember(BuildFailure(fileName: record.fileName, version: version, reason: reason), source: record.sourcePath)
                log("failed to build \(id): \(reason)")
            case .machine:
                // A full disk, an I/O error...: nothing to hold against the file. Built again later.
                let delay = retryLater(record)
                log("failed to build \(id): \(reason) (not the file's fault: retried in \(Int(delay)) s)")
            }
            return
        }
        condition.lock()
        retries[pyramid] = nil
        condition.unlock()
    }

    /// What a failed build's record says: the file's name, and for a bucket source whose store failed, where
    /// from (its staged copy's path, if libvips named it, reduced to the name: no server path is shown).
    private func failureReason(_ record: ImageRecord, staged: String?, _ error: any Error) -> String {
        let text = FailureReason.text(fileName: record.fileName, sourcePath: staged ?? record.sourcePath, error)
        guard error is S3Error else { return text }
        return "\(record.fileName): cannot download it from \(record.sourcePath): \(error)"
    }

    /// A version published whole (built here, by another process, or served directly): the older versions go, a
    /// failure remembered of the file is forgotten, the build is counted, and then the library serves it, so that
    /// what waits for "ready" finds the old versions gone and the build counted.
    private func servePublished(_ record: ImageRecord, _ manifest: PyramidManifest, started: Date) {
        store.removeVersions(of: record.id, except: record.version)
        try? failures?.forget(fileName: record.fileName)
        finished("built", Date().timeIntervalSince(started))
        library.update(record.id, version: record.version) { $0.status = .ready(manifest); $0.partial = nil }
    }

    // MARK: - Sources served from their own levels

    /// How sources that already are pyramids are published (`DirectPublication`, which applies each file's rule);
    /// nil: every source is built.
    /// Set once at start, before the first scan.
    var directPublication: DirectPublication? {
        get { condition.lock(); defer { condition.unlock() }; return direct }
        set { condition.lock(); direct = newValue; condition.unlock() }
    }

    /// How a bucket's sources reach the local disk for their builds (`--images s3://`); nil: the sources are
    /// folder files. Set once at start, before the first scan.
    var sourceDownload: SourceDownload? {
        get { condition.lock(); defer { condition.unlock() }; return download }
        set { condition.lock(); download = newValue; condition.unlock() }
    }

    /// Publishes `record` without a build when its source already is a pyramid: true when it did (or tried and
    /// failed, which is recorded like a failed build), false to build it.
    private func servedDirectly(_ record: ImageRecord, lease: BuildLeaseKeeper) -> Bool {
        guard let publication = directPublication else { return false }
        let (id, version) = (record.id, record.version)
        let started = Date()
        let source: PyramidalSource
        switch publication.decision(for: record) {
        case .build: return false
        case .direct(let pyramid): source = pyramid
        case .refused(let reason):
            lease.end(published: false)
            library.update(id, version: version) { $0.status = .failed(reason); $0.partial = nil }
            finished("failed", Date().timeIntervalSince(started))
            log("not serving \(id): \(reason)")
            return true
        }
        do {
            let manifest = try publication.publish(record, from: source)
            lease.end(published: true)
            servePublished(record, manifest, started: started)
            condition.lock()
            let published = self.published
            condition.unlock()
            published?(id, version, manifest)
            log("serving \(id) directly from its \(source.levels.count) levels: \(manifest.width)x\(manifest.height), published in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        } catch {
            lease.end(published: false)
            let reason = FailureReason.text(fileName: record.fileName, sourcePath: record.sourcePath, error)
            library.update(id, version: version) { $0.status = .failed(reason); $0.partial = nil }
            finished("failed", Date().timeIntervalSince(started))
            log("failed to serve \(id) directly: \(reason)")
        }
        return true
    }

    // MARK: - Retries of builds the machine failed

    /// Seconds before the first retry of a build that failed for the machine's reasons; each further
    /// failure of the same pyramid doubles it, up to `longestRetrySeconds`.
    static let firstRetrySeconds = 2.0
    static let longestRetrySeconds = 300.0

    /// Seconds before the retry of the `attempt`th failure (1 up).
    static func retryDelay(attempt: Int) -> Double {
        min(longestRetrySeconds, firstRetrySeconds * pow(2, Double(min(max(attempt, 1), 20) - 1)))
    }

    /// Queues `record` again after the pause its failures so far call for (returned), unless by then
    /// it has changed, gone, or been built by another process.
    private func retryLater(_ record: ImageRecord) -> Double {
        let pyramid = Self.key(record)
        condition.lock()
        let attempt = (retries[pyramid] ?? 0) + 1
        retries[pyramid] = attempt
        condition.unlock()
        let delay = Self.retryDelay(attempt: attempt)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            condition.lock()
            let stopped = stopping
            condition.unlock()
            guard !stopped, let current = library.record(record.id), current.isVersion(record.version),
                  case .failed = current.status else { return }
            library.update(record.id, version: record.version) { $0.status = .queued }
            enqueue(current)
        }
        return delay
    }

    /// Takes back what an unfinished build published, unless that version got built whole meanwhile.
    private func withdraw(id: String, version: String) {
        library.update(id, version: version) { $0.partial = nil }
        if store.manifest(id: id, version: version) == nil { store.withdraw(id: id, version: version) }
    }

    // MARK: - Builds shared with other replicas

    /// The lease and the store's hold to build `record` now, or nil when another replica or another
    /// process on the same data folder builds it (or already has): then it is watched until its
    /// pyramid is published, and built here if that build ends without one (or its lease lapses).
    /// The store's hold comes first: a lease is never ended on behalf of another process's build.
    private func claim(_ record: ImageRecord) -> (BuildLeaseKeeper, any BuildHold)? {
        let (id, version) = (record.id, record.version)
        let hold: any BuildHold
        do {
            guard let held = try store.holdBuild(id: id, version: version, wait: false) else {
                watch(record, because: "another process on this data folder is building it")
                return nil
            }
            hold = held
        } catch {
            watch(record, because: "it cannot be held for building now (\(error))")
            return nil
        }
        do {
            switch try leases.claim(id: id, version: version) {
            case .granted:
                let lease = BuildLeaseKeeper(leases: leases, id: id, version: version, log: log)
                // Published meanwhile by another process or a replica whose lease ended before it could say so.
                if let manifest = store.manifest(id: id, version: version) {
                    hold.release()
                    lease.end(published: true)
                    library.update(id, version: version) { $0.status = .ready(manifest); $0.partial = nil }
                    return nil
                }
                return (lease, hold)
            case .alreadyPublished:
                if let manifest = store.manifest(id: id, version: version) {
                    library.update(id, version: version) { $0.status = .ready(manifest) }
                } else {
                    watch(record, because: "already published by another replica")
                }
            case .heldElsewhere(let holder):
                watch(record, because: "being built by \(holder ?? "another replica")")
            }
        } catch {
            watch(record, because: "its build lease cannot be claimed now (\(error))")
        }
        hold.release()
        return nil
    }

    private static func key(_ record: ImageRecord) -> String { record.id + "\n" + record.version }

    /// Seconds between looks at images another replica builds.
    static let recheckSeconds = 1.0

    private func watch(_ record: ImageRecord, because reason: String) {
        condition.lock()
        let first = announced.updateValue(record.version, forKey: record.id) != record.version
        elsewhere[record.id] = record
        let startWatcher = !watching
        watching = true
        condition.unlock()
        if first { log("not building \(record.id) here: \(reason)") }
        library.update(record.id, version: record.version) {
            if case .queued = $0.status { $0.status = .building(BuildProgress(percent: 0, etaSeconds: 0)) }
        }
        if startWatcher {
            let thread = Thread { self.watchElsewhere() }
            thread.name = "build-watch"
            thread.start()
        }
    }

    /// Every `recheckSeconds`: an image published elsewhere is served from the shared store;
    /// one still unpublished is queued again, so its claim is retried (and taken over once the
    /// other replica's lease has lapsed).
    private func watchElsewhere() {
        while true {
            Thread.sleep(forTimeInterval: Self.recheckSeconds)
            condition.lock()
            if stopping { condition.unlock(); return }
            let records = Array(elsewhere.values)
            elsewhere.removeAll()
            condition.unlock()
            for record in records where library.record(record.id)?.version == record.version {
                if let manifest = store.manifest(id: record.id, version: record.version) {
                    library.update(record.id, version: record.version) { $0.status = .ready(manifest) }
                    log("\(record.id) was built by another process or replica; serving it")
                } else if let failure = try? failures?.failure(fileName: record.fileName, version: record.version) {
                    library.update(record.id, version: record.version) { $0.status = .failed(failure.reason) }
                } else {
                    condition.lock()
                    let here = buildingHere.contains(Self.key(record))
                    if !here { elsewhere[record.id] = record }  // still watched, quietly
                    condition.unlock()
                    if !here { enqueue(record) }
                }
            }
        }
    }

    /// Only a failure of the version still in the folder: a file changed meanwhile gets its own build.
    private func remember(_ failure: BuildFailure, source: String) {
        // A bucket object's version was checked as it was downloaded.
        guard let failures, sourceDownload != nil || SourceFingerprint.compute(source)?.0.value == failure.version else { return }
        do { try failures.record(failure) } catch {
            log("cannot remember the failed build of \(failure.fileName) (it is built again at the next start): \(error)")
        }
    }
}
