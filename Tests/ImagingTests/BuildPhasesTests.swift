import Foundation
import TestSupport
import Testing
@testable import Imaging

/// The phases of a build add up, nested ones are not counted twice, and nothing is recorded unmeasured.
@Suite struct BuildPhasesTests {
    @Test func nestedPhaseStopsTheOuterClock() {
        let phases = BuildPhases()
        let started = ProcessInfo.processInfo.systemUptime
        phases.measuring {
            BuildPhases.timing(.publish) {
                spin(0.02)
                BuildPhases.timing(.flush) { spin(0.05) }
            }
        }
        let total = ProcessInfo.processInfo.systemUptime - started
        // Exclusive: the flush's time is the flush's only, and the two add up to no more than the whole.
        #expect(phases.seconds(.flush) >= 0.05)
        #expect(phases.seconds(.publish) >= 0.02)
        #expect(phases.seconds(.publish) + phases.seconds(.flush) <= total)
        #expect(phases.peakAnonymousKB(.flush) ?? 0 > 0, "RssAnon read at the phase's end")
        #expect(phases.summary.hasPrefix("phases: publish "))
        #expect(phases.summary.contains(", flush "))
        #expect(!phases.summary.contains("levels"), "a phase that never ran is not listed")
    }

    @Test func unmeasuredWorkRecordsNothing() {
        let phases = BuildPhases()
        BuildPhases.timing(.levels) { spin(0.001) }
        #expect(phases.seconds(.levels) == 0)
        #expect(BuildPhases.current == nil)
    }

    @Test func aBuildReportsItsPhasesIntoTheBoundPhases() throws {
        let folder = try TestScratch.folder("build-phases")
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
        let source = folder + "/source.jpg"
        // Over 4096 px, so the preview's reduced decode runs (PyramidBuilder.previewComesFirst).
        try TestImages.writeJPEG(width: 4400, height: 1400, to: source)
        let phases = BuildPhases()
        _ = try phases.measuring { try PyramidBuilder().build(source: source, into: folder + "/out") }
        for phase in [BuildPhases.Phase.open, .previewDecode, .base, .levels] {
            #expect(phases.seconds(phase) > 0, "\(phase)")
        }
        // Memory is sampled for every phase; where it peaks is checked in a process of its own
        // (BuildPhasesLogTests): here the other suites running alongside move the process's RssAnon.
        for phase in [BuildPhases.Phase.open, .levels] {
            #expect((phases.peakAnonymousKB(phase) ?? 0) > 0, "\(phase)")
        }
    }

    /// Busy for `seconds` of wall time (not a sleep: the phases count wall time either way).
    private func spin(_ seconds: Double) {
        let end = ProcessInfo.processInfo.systemUptime + seconds
        while ProcessInfo.processInfo.systemUptime < end {}
    }
}
