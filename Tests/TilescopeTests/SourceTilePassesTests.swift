import Foundation
import Synchronization
import TestSupport
import Testing
@testable import Tilescope

/// How the deepest level's wanted tiles are gathered into passes down the source (`SourceTilePasses`), with
/// a pass that records what it is handed instead of reading a source.
@Suite struct SourceTilePassesTests {
    /// What passes were handed, in order: ("start", image) at each pass, then each `Next`.
    final class Recorder: Sendable {
        let log = Mutex<[String]>([])
        /// Closed until the test opens it: the first pass holds after its first row, so the test can want more
        /// meanwhile.
        let gate = DispatchSemaphore(value: 0)
        let hold: Mutex<Bool>
        init(holdFirstRow: Bool = false) { hold = Mutex(holdFirstRow) }

        var pass: SourceTilePasses.Pass {
            { [self] passes, image in
                log.withLock { $0.append("start \(image)") }
                var after = 0
                while true {
                    let next = passes.next(image, from: after)
                    switch next {
                    case .done:
                        log.withLock { $0.append("done") }
                        return
                    case .restart:
                        log.withLock { $0.append("restart") }
                        after = 0
                    case .row(let row, let columns):
                        log.withLock { $0.append("row \(row): \(columns.map(String.init).joined(separator: ","))") }
                        if hold.withLock({ held in defer { held = false }; return held }) { gate.wait() }
                        after = row + 1
                        passes.finished(columns.count)
                    }
                }
            }
        }
        var entries: [String] { log.withLock { $0 } }
        var everyPassEnded: Bool {
            let entries = self.entries
            return entries.count(where: { $0.hasPrefix("start ") }) == entries.count(where: { $0 == "done" })
        }
    }

    /// Until no tile is pending and every pass that started has returned (its `done` comes after
    /// its last tile is finished).
    static func waitUntilIdle(_ passes: SourceTilePasses, _ recorder: Recorder) throws {
        let end = Date().addingTimeInterval(20)
        while passes.counts.pending > 0 || !recorder.everyPassEnded {
            guard Date() < end else { throw TestFailure("not idle after 20 s: \(passes.counts), \(recorder.entries)") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Until the first pass holds at its first row: it has logged its start and that row.
    static func waitUntilHeld(_ recorder: Recorder) throws {
        let end = Date().addingTimeInterval(20)
        while recorder.entries.count < 2 {
            guard Date() < end else { throw TestFailure("the pass did not reach its first row in 20 s: \(recorder.entries)") }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    @Test func tilesAskedForWhileAPassRunsAreTakenByItBelowItsPositionAndByAFreshStartAbove() throws {
        let passes = SourceTilePasses()
        let recorder = Recorder(holdFirstRow: true)
        #expect(passes.want("a/1", column: 3, row: 5, pass: recorder.pass) == .queued)
        try Self.waitUntilHeld(recorder)  // the pass holds at row 5
        #expect(passes.want("a/1", column: 1, row: 9, pass: recorder.pass) == .queued)
        #expect(passes.want("a/1", column: 0, row: 9, pass: recorder.pass) == .queued)
        #expect(passes.want("a/1", column: 0, row: 9, pass: recorder.pass) == .alreadyQueued)
        #expect(passes.want("a/1", column: 2, row: 2, pass: recorder.pass) == .queued)
        #expect(passes.counts.pending == 4)
        recorder.gate.signal()
        try Self.waitUntilIdle(passes, recorder)
        #expect(recorder.entries == ["start a/1", "row 5: 3", "row 9: 0,1", "restart", "row 2: 2", "done"])
        #expect(passes.counts.pending == 0 && passes.counts.done == 4)
    }

    @Test func imagesArePassedOneAfterAnotherAndANewRequestAfterAPassStartsANewOne() throws {
        let passes = SourceTilePasses()
        let recorder = Recorder(holdFirstRow: true)
        passes.want("a/1", column: 0, row: 0, pass: recorder.pass)
        try Self.waitUntilHeld(recorder)
        passes.want("b/1", column: 4, row: 1, pass: recorder.pass)
        recorder.gate.signal()
        try Self.waitUntilIdle(passes, recorder)
        #expect(recorder.entries == ["start a/1", "row 0: 0", "done", "start b/1", "row 1: 4", "done"])

        passes.want("a/1", column: 0, row: 0, pass: recorder.pass)  // made before: a new pass is the maker's concern
        try Self.waitUntilIdle(passes, recorder)
        #expect(recorder.entries.suffix(3) == ["start a/1", "row 0: 0", "done"])
    }

    @Test func beyondItsCapacityATileIsDropped() throws {
        let passes = SourceTilePasses(capacity: 2)
        let recorder = Recorder(holdFirstRow: true)
        #expect(passes.want("a/1", column: 0, row: 0, pass: recorder.pass) == .queued)
        try Self.waitUntilHeld(recorder)
        #expect(passes.want("a/1", column: 1, row: 1, pass: recorder.pass) == .queued)
        // One under way and one wanted: full.
        #expect(passes.want("a/1", column: 2, row: 1, pass: recorder.pass) == .dropped)
        #expect(passes.counts.dropped == 1)
        recorder.gate.signal()
        try Self.waitUntilIdle(passes, recorder)
        #expect(passes.want("a/1", column: 2, row: 1, pass: recorder.pass) == .queued)
        try Self.waitUntilIdle(passes, recorder)
        #expect(passes.counts.done == 3)
    }
}
