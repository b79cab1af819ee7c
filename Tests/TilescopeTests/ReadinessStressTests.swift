import Foundation
import TestSupport
import Imaging
import Testing
@testable import Tilescope

/// Issue #18, item 6: every image whose pyramid is built becomes ready, however the folder scans
/// interleave with the builds. Thousands of tiny images, rescans running back to back beside the
/// server's own periodic rescan, two builders.
@Suite(.serialized) struct ReadinessStressTests {
    init() throws { try Vips.start() }

    static let imageCount = 1500

    @Test func everyBuiltImageBecomesReadyDespiteConcurrentRescans() throws {
        let server = try TestServer(label: "readiness-stress", configure: { config in
            config.rescanSeconds = 1
            config.buildConcurrency = 2
        }, populate: { folder in
            for index in 0..<Self.imageCount {
                try TestImages.writeJPEG(width: 8 + index % 9, height: 8 + index % 7,
                                         to: "\(folder)/img-\(index).jpg", seed: index)
            }
        })
        let service = server.service
        #expect(service.library.all.count == Self.imageCount)

        // Rescans back to back until every pyramid is published.
        let done = StopFlag()
        Thread { while !done.value { service.sync.sync() } }.start()
        defer { done.value = true }
        let deadline = Date().addingTimeInterval(240)
        var published = 0
        while Date() < deadline {
            published = service.library.all.filter { service.store.manifest(id: $0.id, version: $0.version) != nil }.count
            if published == Self.imageCount && service.builds.counts == (0, 0) { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        done.value = true
        #expect(published == Self.imageCount, "only \(published) of \(Self.imageCount) pyramids were published in time")

        // Every published pyramid's image must say so: ready, with its descriptor served.
        let notReady = service.library.all.filter { $0.status.name != "ready" }
        #expect(notReady.count == 0, "built images not ready, e.g. \(notReady.prefix(3).map { "\($0.id): \($0.status)" })")
        let unserved = try service.library.all.prefix(200).filter { try server.get("/dzi/\($0.id).dzi").status != 200 }
        #expect(unserved.count == 0, "descriptors not served, e.g. \(unserved.prefix(3).map(\.id))")
    }
}

/// Tells the rescanning thread to stop.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var value: Bool {
        get { lock.withLock { stopped } }
        set { lock.withLock { stopped = newValue } }
    }
}
