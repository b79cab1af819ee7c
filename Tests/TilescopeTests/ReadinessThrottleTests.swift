import Foundation
import Synchronization
import TestSupport
import Testing
@testable import Tilescope

/// `/readyz` is public: its checks that touch the disk run at most once a second, whatever the request rate.
@Suite struct ReadinessThrottleTests {
    final class Clock: @unchecked Sendable {
        let seconds = Mutex(100.0)
        func now() -> Double { seconds.withLock { $0 } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    @Test func aThrottledCheckRunsOncePerIntervalAndRepeatsItsLastResult() {
        let runs = Atomic<Int>(0)
        let clock = Clock()
        let check = Readiness.Check("probe") {
            let count = runs.add(1, ordering: .relaxed).newValue
            return count == 1 ? nil : "run \(count)"
        }.throttled(interval: 1, now: { clock.now() })
        for _ in 0..<1000 { #expect(check.run() == nil) }
        #expect(runs.load(ordering: .relaxed) == 1)
        clock.advance(0.999)
        #expect(check.run() == nil)
        #expect(runs.load(ordering: .relaxed) == 1)
        clock.advance(0.002)
        #expect(check.run() == "run 2")
        for _ in 0..<1000 { #expect(check.run() == "run 2") }
        #expect(runs.load(ordering: .relaxed) == 2)
    }

    /// The data folder probe is throttled: gone right after a probe, the folder is reported missing
    /// only once the interval has passed.
    @Test func theDataFolderProbeIsThrottled() throws {
        let folder = try TestImages.folder("readyz-throttle")
        let clock = Clock()
        let check = Readiness.writableFolder("data", path: folder, now: { clock.now() })
        #expect(check.run() == nil)
        #expect(rename(folder, folder + ".away") == 0)
        for _ in 0..<100 { #expect(check.run() == nil) }
        clock.advance(1)
        #expect(check.run()?.contains("cannot create a file in \(folder)") == true)
        #expect(rename(folder + ".away", folder) == 0)
    }
}
