import Foundation
import TestSupport
import Testing
@testable import Imaging

/// Progress reports of a build: the estimate of the time left exists from the first report on.
@Suite struct BuildProgressTests {
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [BuildProgress] = []
        func add(_ progress: BuildProgress) { lock.withLock { list.append(progress) } }
        var values: [BuildProgress] { lock.withLock { list } }
    }

    @Test func everyReportBeforeTheEndHasAnEstimate() throws {
        let folder = try TestImages.folder()
        let source = folder + "/source.jpg"
        try TestImages.writeJPEG(width: 4000, height: 3000, to: source, seed: 3)
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let reports = Reports()
        _ = try PyramidBuilder().build(source: source, into: out) { reports.add($0) }
        let during = reports.values.filter { $0.percent > 0 && $0.percent < 100 }
        #expect(during.count > 10)
        // libvips's own estimate stays 0 for the first tenth (and longer through dzsave's pipeline).
        let without = during.filter { $0.etaSeconds < 1 }
        #expect(without.isEmpty, "reports without an estimate: \(without.map(\.percent))")
        #expect(reports.values.last == BuildProgress(percent: 100, etaSeconds: 0))
    }

    @Test func theEstimateIsTheRemainingShareOfTheTimeSoFar() {
        var clock = ProgressClock(startedAt: 100)
        #expect(clock.estimate(percent: 0, now: 101) == 0)
        #expect(clock.estimate(percent: 10, now: 102) == 18)   // 2 s for 10 %: 18 s for the other 90 %
        #expect(clock.estimate(percent: 50, now: 110) == 10)
        #expect(clock.estimate(percent: 99, now: 199.5) == 2)  // never 0 before the end: rounded up
        #expect(clock.estimate(percent: 100, now: 200) == 0)
        clock = ProgressClock(startedAt: 0)
        #expect(clock.estimate(percent: 1, now: 1e12) == ProgressClock.longest)  // bounded, never a trap
    }
}
