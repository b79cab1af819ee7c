import Foundation
import Synchronization

/// Schedules passes down a source image that make the deepest level's AVIF tiles from the source's
/// own pixels (`SourceTileRows`, `DeepZoomFormatTiles.writeFromSource`), behind the JPEG answers that
/// stand in for them meanwhile (`DerivedFormats.interimTile`).
///
/// Why passes and not one job per tile: a tile of a plain JPEG source cannot be read alone (everything
/// above it is decoded to reach it), so the tiles asked for are gathered per image and made in one pass
/// down the source, which takes every tile asked for in a row it has not passed yet, also those asked
/// for while it runs; tiles asked for above its position wait for the next pass, from the top. Only tiles
/// somebody asked for are made: an AVIF tile costs about 0.15 s of CPU, and most tiles are never viewed.
///
/// Bounded like `FormatTileEncodings`: a tile is wanted once however often it is asked for, at most
/// `capacity` tiles wanted at once over all images (beyond that a tile is dropped, and its next request
/// asks again), and one pass at a time: a pass is a job of a one-thread `WorkQueue`, whose jobs are the
/// images waiting for a pass, in the order their first tile was asked for.
final class SourceTilePasses: Sendable {
    enum Outcome: Equatable, Sendable {
        case queued, alreadyQueued, dropped
    }

    /// What a pass is handed next.
    enum Next: Equatable, Sendable {
        /// The wanted tiles of the first wanted row at or below the row asked from, now under way.
        case row(Int, columns: [Int])
        /// Only rows above the pass's position are wanted: start again from the top.
        case restart
        /// Nothing is wanted: the pass ends (a later request starts a new one).
        case done
    }

    typealias Pass = @Sendable (SourceTilePasses, _ image: String) -> Void

    private struct Image {
        /// Wanted tiles by row: their columns.
        var wanted: [Int: Set<Int>] = [:]
        var pass: Pass
        var scheduled = false
    }

    private struct State {
        var images: [String: Image] = [:]
        var wanted = 0
        /// Tiles handed to a pass and not finished.
        var underWay = 0
        var dropped = 0
        var done = 0
    }

    private let state = Mutex(State())
    let capacity: Int
    /// The passes: one image each. Never full while it runs (an image waits for one pass at most, and an
    /// image waits only for a tile wanted), so it refuses a pass only once it is shut down.
    let queue: WorkQueue

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
        queue = WorkQueue(name: "source-tile-passes", threads: 1, capacity: self.capacity)
    }

    /// Wants the deepest tile `column`, `row` of `image` (an image version's key), made by `pass` when
    /// this image has no pass scheduled yet.
    @discardableResult
    func want(_ image: String, column: Int, row: Int, pass: @escaping Pass) -> Outcome {
        let (outcome, schedule) = state.withLock { state -> (Outcome, Bool) in
            if state.images[image]?.wanted[row]?.contains(column) == true { return (.alreadyQueued, false) }
            guard state.wanted + state.underWay < capacity else {
                state.dropped += 1
                return (.dropped, false)
            }
            state.images[image, default: Image(pass: pass)].wanted[row, default: []].insert(column)
            state.wanted += 1
            guard state.images[image]?.scheduled == false else { return (.queued, false) }
            state.images[image]?.scheduled = true
            return (.queued, true)
        }
        if schedule { self.schedule(image) }
        return outcome
    }

    /// Queues a pass of `image`. Refused (the queue is shut down), the image's wanted tiles are dropped: a
    /// request after a restart asks again.
    private func schedule(_ image: String) {
        guard !queue.submit({ [self] in runPass(image) }) else { return }
        state.withLock { state in
            guard let entry = state.images.removeValue(forKey: image) else { return }
            let count = entry.wanted.values.reduce(0) { $0 + $1.count }
            state.wanted -= count
            state.dropped += count
        }
    }

    /// One pass of `image`, on the queue's thread.
    private func runPass(_ image: String) {
        guard let pass = state.withLock({ $0.images[image]?.pass }) else { return }
        pass(self, image)
        // A pass that ended without `.done` (it threw away its reader, say) leaves its image wanted:
        // schedule it again, or forget it if nothing is left.
        let again = state.withLock { state -> Bool in
            guard let entry = state.images[image] else { return false }
            if entry.wanted.isEmpty {
                state.images[image] = nil
                return false
            }
            return true
        }
        if again { schedule(image) }
    }

    /// For a pass of `image` standing below tile row `after - 1`: the next wanted row at or below `after`.
    /// The previous row's tiles count as finished.
    func next(_ image: String, from after: Int) -> Next {
        state.withLock { state in
            guard var entry = state.images[image], !entry.wanted.isEmpty else {
                state.images[image] = nil
                return .done
            }
            guard let row = entry.wanted.keys.filter({ $0 >= after }).min() else { return .restart }
            let columns = entry.wanted.removeValue(forKey: row)!.sorted()
            state.images[image] = entry
            state.wanted -= columns.count
            state.underWay += columns.count
            return .row(row, columns: columns)
        }
    }

    /// A pass finished `count` tiles it was handed (made, kept as JPEG, or failed).
    func finished(_ count: Int) {
        state.withLock { state in
            state.underWay -= count
            state.done += count
        }
    }

    /// Tiles wanted or under way, tiles dropped and tiles finished since start.
    var counts: (pending: Int, dropped: Int, done: Int) {
        state.withLock { ($0.wanted + $0.underWay, $0.dropped, $0.done) }
    }

    /// Waits until no pass is scheduled or under way (its last `.done` handed out and returned from), up to
    /// `seconds`; false if one still was then.
    func waitUntilIdle(seconds: Double = 120) -> Bool {
        queue.waitUntilIdle(seconds: seconds)
    }
}
