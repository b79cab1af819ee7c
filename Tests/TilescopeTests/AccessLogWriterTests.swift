import Foundation
import Synchronization
import Testing
@testable import Tilescope

/// The access-log writer: lines come out whole and in order, a stdout nobody reads costs counted lines
/// and never blocks the caller, lines flow again once it is read, and a stop flushes within its deadline.
@Suite struct AccessLogWriterTests {
    /// What the writer said on "stderr".
    final class Reports: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var report: @Sendable (String) -> Void { { message in self.lines.withLock { $0.append(message) } } }

        /// The N of every "N access-log lines dropped" message, summed.
        var droppedTotal: Int {
            all.compactMap { message -> Int? in
                guard message.hasSuffix(" access-log lines dropped: stdout was not read") else { return nil }
                return Int(message.prefix { $0 != " " })
            }.reduce(0, +)
        }
    }

    /// Reads a descriptor to its end on a thread of its own.
    final class Drain: Sendable {
        private let bytes = Mutex<[UInt8]>([])
        private let done = DispatchSemaphore(value: 0)

        init(_ descriptor: Int32) {
            let thread = Thread { [self] in
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    bytes.withLock { $0 += chunk[..<count] }
                }
                done.signal()
            }
            thread.start()
        }

        /// Waits (up to a minute) until `count` whole lines have been read; false if they were not.
        func waitFor(lines count: Int) -> Bool {
            let end = Date().addingTimeInterval(60)
            while bytes.withLock({ $0.count(where: { $0 == 10 }) }) < count {
                guard Date() < end else { return false }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return true
        }

        /// The lines read once the write end is closed (nil if that took over a minute).
        func lines() -> [String]? {
            guard done.wait(timeout: .now() + 60) == .success else { return nil }
            let text = String(decoding: bytes.withLock { $0 }, as: UTF8.self)
            guard text.hasSuffix("\n") || text.isEmpty else { return [text] }  // a torn last line fails below
            return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// Close-on-exec: other tests of this process spawn servers meanwhile (`posix_spawn` passes on every descriptor
    /// without it), and a child that inherited the write end would hold it open, so the reader would see no end of
    /// the pipe until that child exits (`lines()` gave nil once in a full suite). Set at once after `pipe`: Glibc's
    /// module has no `pipe2`, which would set it in the same call.
    static func pipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        precondition(Glibc.pipe(&ends) == 0)
        for end in ends { precondition(fcntl(end, F_SETFD, FD_CLOEXEC) == 0) }
        return (ends[0], ends[1])
    }

    /// `L<sequence> ` padded with `x` to `length` bytes, so a torn or mixed line is seen.
    static func line(_ sequence: Int, tag: String = "L", length: Int = 100) -> [UInt8] {
        let head = Array("\(tag)\(sequence) ".utf8)
        return head + [UInt8](repeating: 120, count: max(0, length - head.count))
    }

    static func parse(_ line: String, tag: String = "L", length: Int = 100) -> Int? {
        guard line.utf8.count == length || length == 0, line.hasPrefix(tag), let space = line.firstIndex(of: " "),
              line[line.index(after: space)...].allSatisfy({ $0 == "x" }) else { return nil }
        return Int(line[line.index(line.startIndex, offsetBy: tag.count)..<space])
    }

    /// Runs `work` on a thread of its own; true if it finished within a minute (generous: this checks
    /// that it cannot block forever, not how fast it is).
    static func finishes(_ work: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            work()
            done.signal()
        }
        thread.start()
        return done.wait(timeout: .now() + 60) == .success
    }

    @Test func linesFromManyThreadsComeOutWholeAndInOrder() throws {
        let (readEnd, writeEnd) = Self.pipe()
        let drain = Drain(readEnd)
        let writer = AccessLogWriter(descriptor: writeEnd, capacity: 64 << 20, report: Reports().report)
        let threads = 8, perThread = 2000
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                // Lengths from 12 to 400 bytes, so lines straddle the pipe's and the batches' boundaries.
                for sequence in 0..<perThread {
                    writer.append(Self.line(sequence, tag: "T\(thread)-", length: 12 + (sequence * 37 + thread) % 389))
                }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(writer.stop(deadline: 60))
        close(writeEnd)
        let lines = try #require(drain.lines())
        close(readEnd)
        #expect(writer.droppedLines == 0)
        #expect(lines.count == threads * perThread)
        for thread in 0..<threads {
            let tag = "T\(thread)-"
            let mine = lines.filter { $0.hasPrefix(tag) }
            let sequences = mine.compactMap { Self.parse($0, tag: tag, length: 0) }
            #expect(sequences == Array(0..<perThread), "thread \(thread): lines missing, torn or out of order")
            for (sequence, line) in zip(sequences, mine) {
                #expect(line.utf8.count == 12 + (sequence * 37 + thread) % 389)
            }
        }
    }

    @Test func aStdoutNobodyReadsDropsAndCountsLinesAndNeverBlocksTheCaller() throws {
        let (readEnd, writeEnd) = Self.pipe()
        let reports = Reports()
        let writer = AccessLogWriter(descriptor: writeEnd, capacity: 16 << 10, reportInterval: 0, report: reports.report)
        // 500 KB of lines against a 64 KiB pipe and a 16 KiB buffer: the writer blocks, the callers must not.
        let before = 5000
        #expect(Self.finishes { for sequence in 0..<before { writer.append(Self.line(sequence)) } },
                "append blocked on a pipe nobody reads")
        let droppedWhileStalled = writer.droppedLines
        #expect(droppedWhileStalled > before / 2)

        // Read again: the writer catches up with what it kept (everything not dropped), then has room,
        // and lines appended after that all come out.
        let drain = Drain(readEnd)
        #expect(drain.waitFor(lines: before - droppedWhileStalled))
        #expect(writer.droppedLines == droppedWhileStalled)
        let after = 100  // 10 KB: fits in the empty 16 KiB buffer
        #expect(Self.finishes { for sequence in 0..<after { writer.append(Self.line(sequence, tag: "A")) } })
        #expect(writer.stop(deadline: 60))
        close(writeEnd)
        let lines = try #require(drain.lines())
        close(readEnd)

        let early = lines.filter { !$0.hasPrefix("A") }.map { Self.parse($0) }
        #expect(!early.contains(nil), "a torn line")
        let earlySequences = early.compactMap { $0 }
        #expect(earlySequences == earlySequences.sorted())
        #expect(earlySequences.first == 0)  // the first lines went out before the pipe filled
        let late = lines.filter { $0.hasPrefix("A") }
        #expect(late.count == after)
        #expect(late.compactMap { Self.parse($0, tag: "A") } == Array(0..<after))
        // Every line is written or counted as dropped, and every dropped line was reported.
        #expect(lines.count + writer.droppedLines == before + after)
        #expect(reports.droppedTotal == writer.droppedLines)
    }

    @Test func stopFlushesWhatIsQueued() throws {
        let (readEnd, writeEnd) = Self.pipe()
        let writer = AccessLogWriter(descriptor: writeEnd, report: Reports().report)
        // 40 KB: fits in the pipe, so the flush can finish with nobody reading yet.
        for sequence in 0..<400 { writer.append(Self.line(sequence)) }
        #expect(writer.stop(deadline: 60))
        writer.append(Self.line(400))  // after the stop: dropped, and counted
        close(writeEnd)
        let lines = try #require(Drain(readEnd).lines())
        close(readEnd)
        #expect(lines.compactMap { Self.parse($0) } == Array(0..<400))
        #expect(writer.droppedLines == 1)
    }

    @Test func aStuckStdoutDoesNotHoldTheStopPastItsDeadline() throws {
        let (readEnd, writeEnd) = Self.pipe()
        let writer = AccessLogWriter(descriptor: writeEnd, report: Reports().report)
        for sequence in 0..<2000 { writer.append(Self.line(sequence)) }  // 200 KB: more than the pipe holds
        let flushed = Reports()
        #expect(Self.finishes { flushed.report("\(writer.stop(deadline: 0.2))") })
        #expect(flushed.all == ["false"])
        // Read it: the writer then finishes, and a second stop says so.
        let drain = Drain(readEnd)
        #expect(writer.stop(deadline: 60))
        close(writeEnd)
        let lines = try #require(drain.lines())
        close(readEnd)
        #expect(lines.compactMap { Self.parse($0) } == Array(0..<2000))
    }

    @Test func aClosedStdoutStopsTheWriterAndDropsLaterLines() throws {
        let (readEnd, writeEnd) = Self.pipe()
        close(readEnd)  // EPIPE on the first write, not SIGPIPE (which would end this test process)
        let reports = Reports()
        let writer = AccessLogWriter(descriptor: writeEnd, report: reports.report)
        writer.append(Self.line(0))
        #expect(writer.stop(deadline: 60))
        writer.append(Self.line(1))
        close(writeEnd)
        #expect(writer.droppedLines == 2)
        #expect(reports.all.first?.hasPrefix("access log off: cannot write to stdout") == true)
    }
}
