import Foundation
import Synchronization

/// Makes derived Deep Zoom tiles (AVIF below the deepest level) behind the reply, on a `WorkQueue` of their
/// own, so that no viewer waits for an encoding: the request that finds a tile not made yet is answered at
/// once with the JPEG tile's pixels (`DerivedFormats.interimTile`), and its encoding is queued here.
///
/// Why: an AVIF tile made from the finer level costs a third to two fifths of a second of CPU, once; a cold
/// view of 50 to 150 such tiles waited a minute or more for its picture on the server's worker pool, and
/// kept the workers from every other request meanwhile (docs/benchmarks.md#client-vs-openseadragon).
///
/// Bounded three ways, as `IIIFTileWrites` is: one encoding per tile at a time (a tile asked for again while
/// queued or under way is not queued twice: the key set here), at most `capacity` tiles waiting or under way
/// (beyond that the queue drops a tile, and the next request for it queues it again), and at most `encoders`
/// under way at once, on threads apart from the worker pool, so the requests that are answered now keep the
/// workers.
final class FormatTileEncodings: Sendable {
    /// What `enqueue` did with a tile.
    enum Outcome: Equatable, Sendable {
        case queued, alreadyQueued, dropped
    }

    /// The tiles waiting or under way, by key.
    private let keys = Mutex(Set<String>())
    let queue: WorkQueue
    var encoders: Int { queue.threads }
    var capacity: Int { queue.capacity }

    /// `encoders` threads at most (about half the cores: the other half answers requests), `capacity`
    /// tiles at most waiting or under way (a few views' worth: a 1280 x 800 view at DPR 2 needs about 60).
    /// `name` names the queue in /metrics.
    init(name: String = "avif-tiles", encoders: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2),
         capacity: Int = 256) {
        queue = WorkQueue(name: name, threads: encoders, capacity: capacity)
    }

    /// Queues `work` under `key` (the path of the file it makes) unless that tile is already waiting or under
    /// way, or the queue is full.
    @discardableResult
    func enqueue(_ key: String, _ work: @escaping @Sendable () -> Void) -> Outcome {
        guard keys.withLock({ $0.insert(key).inserted }) else { return .alreadyQueued }
        let accepted = queue.submit { [self] in
            work()
            _ = keys.withLock { $0.remove(key) }
        }
        guard accepted else {
            _ = keys.withLock { $0.remove(key) }
            return .dropped
        }
        return .queued
    }

    /// Tiles waiting or under way, encodings under way, tiles dropped and encodings done since start.
    var counts: (pending: Int, running: Int, dropped: Int, done: Int) {
        let counts = queue.snapshot
        return (counts.queued + counts.running, counts.running, counts.dropped, counts.done)
    }

    /// True while `key` is waiting or under way.
    func isPending(_ key: String) -> Bool {
        keys.withLock { $0.contains(key) }
    }

    /// Waits until nothing is waiting or under way, up to `seconds` (tests and benchmarks); false if it never
    /// got there.
    func waitUntilIdle(seconds: Double = 120) -> Bool {
        queue.waitUntilIdle(seconds: seconds)
    }
}
