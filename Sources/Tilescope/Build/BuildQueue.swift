import Catalog
import Foundation
import Imaging

/// Builds pyramids in the background, smallest image first, a bounded number at a time,
/// so that one huge image neither delays the small ones nor starves tile serving.
public final class BuildQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [ImageRecord] = []
    private var running = 0
    private var stopping = false
    private let store: any PyramidStore
    private let library: ImageLibrary
    private let builder: PyramidBuilder
    private let log: @Sendable (String) -> Void
    /// Told how each build ended ("built", "failed" or "discarded") and how long it took.
    private let finished: @Sendable (_ outcome: String, _ seconds: Double) -> Void

    public init(store: any PyramidStore, library: ImageLibrary, builder: PyramidBuilder,
                concurrency: Int, log: @escaping @Sendable (String) -> Void,
                finished: @escaping @Sendable (_ outcome: String, _ seconds: Double) -> Void = { _, _ in }) {
        self.finished = finished
        self.store = store
        self.library = library
        self.builder = builder
        self.log = log
        for index in 0..<max(1, concurrency) {
            let thread = Thread { [unowned self] in self.run() }
            thread.name = "build-\(index)"
            thread.start()
        }
    }

    public func enqueue(_ record: ImageRecord) {
        condition.lock()
        waiting.removeAll { $0.id == record.id }
        waiting.append(record)
        condition.signal()
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

    private func run() {
        while let record = next() {
            build(record)
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }

    private func next() -> ImageRecord? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !stopping { condition.wait() }
        guard !stopping, let index = waiting.indices.min(by: { pixels(waiting[$0]) < pixels(waiting[$1]) })
        else { return nil }
        running += 1
        return waiting.remove(at: index)
    }

    private func pixels(_ record: ImageRecord) -> Int { record.header?.pixels ?? Int.max }

    private func build(_ record: ImageRecord) {
        let (id, version) = (record.id, record.version)
        guard library.record(id)?.version == version else { return }  // superseded while queued
        let started = Date()
        log("building \(id) (\(record.fileName))")
        let library = self.library
        library.update(id, version: version) { $0.status = .building(BuildProgress(percent: 0, etaSeconds: 0)) }
        var staging: String?
        do {
            let folder = try store.makeStagingFolder(id: id, version: version)
            staging = folder
            let pyramid = try builder.build(source: record.sourcePath, into: folder) { progress in
                library.update(id, version: version) { $0.status = .building(progress) }
            }
            // The source may have changed while it was read: publish only what matches the fingerprint.
            guard SourceFingerprint.compute(record.sourcePath)?.0.value == version else {
                store.discard(stagingFolder: folder)
                finished("discarded", Date().timeIntervalSince(started))
                log("\(id) changed while building; its new version will be built")
                return
            }
            let manifest = PyramidManifest(pyramid: pyramid, source: record.fileName, version: version)
            _ = try store.publish(stagingFolder: folder, manifest: manifest, id: id, version: version)
            staging = nil
            library.update(id, version: version) { $0.status = .ready(manifest) }
            store.removeVersions(of: id, except: version)
            finished("built", Date().timeIntervalSince(started))
            log("built \(id): \(pyramid.width)x\(pyramid.height) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        } catch {
            if let staging { store.discard(stagingFolder: staging) }
            library.update(id, version: version) { $0.status = .failed("\(error)") }
            finished("failed", Date().timeIntervalSince(started))
            log("failed to build \(id): \(error)")
        }
    }
}
