import Foundation
import Synchronization

/// Makes derived Deep Zoom tiles (AVIF below the deepest level) behind the reply, on a few threads of their
/// own, so that no viewer waits for an encoding: the request that finds a tile not made yet is answered at
/// once with the JPEG tile's pixels (`TilescopeApp.interimFormatTile`), and its encoding is queued here.
///
/// Why: an AVIF tile made from the finer level costs a third to two fifths of a second of CPU, once; a cold
/// view of 50 to 150 such tiles waited a minute or more for its picture on the server's worker pool, and
/// kept the workers from every other request meanwhile (docs/benchmarks.md#client-vs-openseadragon).
///
/// Bounded three ways, as `IIIFTileWrites` is: one encoding per tile at a time (a tile asked for again while
/// queued or under way is not queued twice), at most `capacity` tiles waiting or under way (beyond that a
/// tile is dropped, and the next request for it queues it again), and at most `encoders` under way at once,
/// on threads apart from the worker pool, so the requests that are answered now keep the workers.
final class FormatTileEncodings: Sendable {
    /// What `enqueue` did with a tile.
    enum Outcome: Equatable, Sendable {
        case queued, alreadyQueued, dropped
    }

    private struct State {
        var waiting: [(key: String, work: @Sendable () -> Void)] = []
        /// The tiles waiting or under way, by key.
        var keys = Set<String>()
        var running = 0
        var dropped = 0
        var done = 0
    }

    private let state = Mutex(State())
    let encoders: Int
    let capacity: Int

    /// `encoders` threads at most (about half the cores: the other half answers requests), `capacity`
    /// tiles at most waiting or under way (a few views' worth: a 1280 x 800 view at DPR 2 needs about 60).
    init(encoders: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), capacity: Int = 256) {
        self.encoders = max(1, encoders)
        self.capacity = max(1, capacity)
    }

    /// Queues `work` under `key` (the path of the file it makes) unless that tile is already waiting or under
    /// way, or the queue is full.
    @discardableResult
    func enqueue(_ key: String, _ work: @escaping @Sendable () -> Void) -> Outcome {
        let (outcome, startThread) = state.withLock { state -> (Outcome, Bool) in
            guard !state.keys.contains(key) else { return (.alreadyQueued, false) }
            guard state.keys.count < capacity else {
                state.dropped += 1
                return (.dropped, false)
            }
            state.keys.insert(key)
            state.waiting.append((key, work))
            guard state.running < encoders else { return (.queued, false) }
            state.running += 1
            return (.queued, true)
        }
        if startThread {
            Thread.detachNewThread { [self] in runUntilEmpty() }
        }
        return outcome
    }

    /// One encoder thread: takes tiles in the order they were asked for until none waits, then ends (a
    /// server with nothing to encode holds no thread for it).
    private func runUntilEmpty() {
        while let (key, work) = state.withLock({ state -> (String, @Sendable () -> Void)? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            let next = state.waiting.removeFirst()
            return (next.key, next.work)
        }) {
            work()
            state.withLock { state in
                state.keys.remove(key)
                state.done += 1
            }
        }
    }

    /// Tiles waiting or under way, encodings under way, tiles dropped and encodings done since start.
    var counts: (pending: Int, running: Int, dropped: Int, done: Int) {
        state.withLock { ($0.keys.count, $0.running, $0.dropped, $0.done) }
    }

    /// True while `key` is waiting or under way.
    func isPending(_ key: String) -> Bool {
        state.withLock { $0.keys.contains(key) }
    }

    /// Waits until nothing is waiting or under way, polling, up to `seconds` (tests and benchmarks); false if
    /// it never got there.
    func waitUntilIdle(seconds: Double = 120) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while counts.pending > 0 {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}
