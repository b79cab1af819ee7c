import Foundation
import Synchronization
import Testing
@testable import Tilescope

/// The queue that makes AVIF tiles behind the reply: one encoding per tile at a time, bounded in tiles
/// waiting, never more than its encoders under way, and every queued tile made once.
@Suite struct FormatTileEncodingsTests {
    /// A gate the encodings wait at until the test opens it, so what is queued is seen while it waits.
    final class Gate: Sendable {
        private let open = Mutex(false)
        func release() { open.withLock { $0 = true } }
        func wait() { while !open.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) } }
    }

    @Test func aFullQueueDropsAndATileIsQueuedOnceAtATime() throws {
        let encodings = FormatTileEncodings(encoders: 1, capacity: 3)
        let gate = Gate()
        let made = Mutex([String]())
        func work(_ key: String) -> @Sendable () -> Void { { gate.wait(); made.withLock { $0.append(key) } } }
        #expect(encodings.enqueue("a", work("a")) == .queued)
        #expect(encodings.enqueue("b", work("b")) == .queued)
        #expect(encodings.enqueue("a", work("a")) == .alreadyQueued)
        #expect(encodings.enqueue("c", work("c")) == .queued)
        #expect(encodings.enqueue("d", work("d")) == .dropped)
        #expect(encodings.enqueue("b", work("b")) == .alreadyQueued)
        #expect(encodings.counts.pending == 3 && encodings.counts.dropped == 1)
        #expect(encodings.isPending("a") && !encodings.isPending("d"))
        gate.release()
        #expect(encodings.waitUntilIdle())
        #expect(made.withLock { $0 } == ["a", "b", "c"])  // in the order asked for, each once
        #expect(encodings.counts.done == 3 && encodings.counts.pending == 0 && encodings.counts.running == 0)
        // Made and gone from the queue: the same tile can be queued again (its file decides whether to encode).
        #expect(encodings.enqueue("a", work("a")) == .queued)
        #expect(encodings.enqueue("d", work("d")) == .queued)
        #expect(encodings.waitUntilIdle())
        #expect(made.withLock { $0 } == ["a", "b", "c", "a", "d"])
    }

    @Test func neverMoreThanItsEncodersUnderWay() throws {
        let encodings = FormatTileEncodings(encoders: 2, capacity: 64)
        let gate = Gate()
        let inside = Mutex((now: 0, most: 0, done: 0))
        for index in 0..<24 {
            encodings.enqueue("tile-\(index)") {
                inside.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                gate.wait()
                inside.withLock { $0.now -= 1; $0.done += 1 }
            }
        }
        // Both encoders are busy before the gate opens (waited for, not timed), and no third started.
        let end = Date().addingTimeInterval(30)
        while inside.withLock({ $0.now }) < 2 && Date() < end { Thread.sleep(forTimeInterval: 0.001) }
        #expect(inside.withLock { $0.now } == 2)
        #expect(encodings.counts.running == 2 && encodings.counts.pending == 24)
        gate.release()
        #expect(encodings.waitUntilIdle())
        let final = inside.withLock { $0 }
        #expect(final.most == 2 && final.done == 24 && final.now == 0)
        #expect(encodings.counts.running == 0)
    }
}
