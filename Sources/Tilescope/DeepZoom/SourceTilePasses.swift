import Foundation
import Synchronization

/// Schedules passes down a source image that make the deepest level's AVIF tiles from the source's
/// own pixels (`SourceTileRows`, `DeepZoomFormatTiles.writeFromSource`), behind the JPEG answers that
/// stand in for them meanwhile (`interimFormatTile`).
///
/// Why passes and not one job per tile: a tile of a plain JPEG source cannot be read alone (everything
/// above it is decoded to reach it), so the tiles asked for are gathered per image and made in one pass
/// down the source, which takes every tile asked for in a row it has not passed yet, also those asked
/// for while it runs; tiles asked for above its position wait for the next pass, from the top. Only tiles
/// somebody asked for are made: an AVIF tile costs about 0.15 s of CPU, and most tiles are never viewed.
///
/// Bounded like `FormatTileEncodings`: a tile is wanted once however often it is asked for, at most
/// `capacity` tiles wanted at once over all images (beyond that a tile is dropped, and its next request
/// asks again), and one pass at a time, on a thread of its own.
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
        /// Images waiting for a pass, in the order their first tile was asked for.
        var queue: [String] = []
        var wanted = 0
        /// Tiles handed to a pass and not finished.
        var underWay = 0
        var running = false
        var dropped = 0
        var done = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// Wants the deepest tile `column`, `row` of `image` (an image version's key), made by `pass` when
    /// this image has no pass scheduled yet.
    @discardableResult
    func want(_ image: String, column: Int, row: Int, pass: @escaping Pass) -> Outcome {
        let (outcome, start) = state.withLock { state -> (Outcome, Bool) in
            if state.images[image]?.wanted[row]?.contains(column) == true { return (.alreadyQueued, false) }
            guard state.wanted + state.underWay < capacity else {
                state.dropped += 1
                return (.dropped, false)
            }
            state.images[image, default: Image(pass: pass)].wanted[row, default: []].insert(column)
            state.wanted += 1
            if state.images[image]?.scheduled == false {
                state.images[image]?.scheduled = true
                state.queue.append(image)
            }
            guard !state.running else { return (.queued, false) }
            state.running = true
            return (.queued, true)
        }
        if start {
            Thread.detachNewThread { [self] in runUntilEmpty() }
        }
        return outcome
    }

    /// The thread of the passes: one image after another until none waits, then it ends.
    private func runUntilEmpty() {
        while let (image, pass) = state.withLock({ state -> (String, Pass)? in
            guard !state.queue.isEmpty else {
                state.running = false
                return nil
            }
            let image = state.queue.removeFirst()
            return state.images[image].map { (image, $0.pass) }
        }) {
            pass(self, image)
            // A pass that ended without `.done` (it threw away its reader, say) leaves its image wanted:
            // schedule it again, or forget it if nothing is left.
            state.withLock { state in
                guard let entry = state.images[image] else { return }
                if entry.wanted.isEmpty {
                    state.images[image] = nil
                } else {
                    state.queue.append(image)
                }
            }
        }
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
}
