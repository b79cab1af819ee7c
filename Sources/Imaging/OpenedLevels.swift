import Foundation

/// The level images a `PyramidalSource` has opened, kept for the reads that follow, at most `maximumCount`
/// of them and about `maximumBytes` of what holding them costs, least recently used closed first.
///
/// Why: opening a level costs from milliseconds (a TIFF page) to a tenth of a second (an OpenSlide handle
/// of a large slide, a JPEG 2000 codestream of many tiles), and holding one costs memory outside libvips's
/// pixels (OpenSlide's 32 MB tile cache per handle, OpenJPEG's state of every tile). A libvips image is
/// immutable and may be cropped from several threads at once, so one opened image serves every reader.
/// Each level opens once even when several threads ask for it together (a lock of its own, so that
/// opening one level does not hold up reads of the others). The level just asked for is never closed,
/// however costly; a closed level's image lives on in the reads still using it.
final class OpenedLevels: @unchecked Sendable {
    let maximumCount: Int
    let maximumBytes: Int

    private final class Slot: @unchecked Sendable {
        let lock = NSLock()
        let cost: Int
        var image: VImage?

        init(cost: Int) { self.cost = cost }
    }

    private let lock = NSLock()
    private var slots: [Int: Slot] = [:]
    /// Level indexes, least recently used first.
    private var recency: [Int] = []

    init(maximumCount: Int, maximumBytes: Int) {
        self.maximumCount = max(1, maximumCount)
        self.maximumBytes = maximumBytes
    }

    /// Level `index`'s image, opened by `open` if it is not open yet; `cost` is what holding it costs in bytes.
    func image(_ index: Int, cost: Int, open: () throws -> VImage) throws -> VImage {
        let slot = lock.withLock { () -> Slot in
            let slot = slots[index] ?? Slot(cost: cost)
            slots[index] = slot
            recency.removeAll { $0 == index }
            recency.append(index)
            closeLeastRecentLocked()
            return slot
        }
        return try slot.lock.withLock {
            if let image = slot.image { return image }
            let image = try open()
            slot.image = image
            return image
        }
    }

    /// The levels open now (or being opened), least recently used first.
    var openIndexes: [Int] { lock.withLock { recency } }

    private func closeLeastRecentLocked() {
        var bytes = recency.reduce(0) { $0 + (slots[$1]?.cost ?? 0) }
        while recency.count > 1 && (recency.count > maximumCount || bytes > maximumBytes) {
            let oldest = recency.removeFirst()
            bytes -= slots.removeValue(forKey: oldest)?.cost ?? 0
        }
    }
}
