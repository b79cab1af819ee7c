import Foundation
import Imaging

/// The sources served from their own levels (`PyramidManifest.isDirect`), opened once and kept: opening one
/// reads its header and levels (an OpenSlide slide: hundreds of milliseconds), so no request opens a
/// multi-gigabyte file of its own. At most `capacity` (8) are kept open; the one used longest ago is closed
/// first, so what open sources hold is bounded by `capacity` times `openBytes` (and the levels in use).
/// Each keeps its own small cache of opened levels (`PyramidalSource`).
final class DirectSources: @unchecked Sendable {
    let capacity: Int
    private let lock = NSLock()
    /// By `id/version`, with the time each was last used (a counter, not a clock).
    private var open: [String: (source: PyramidalSource, used: Int)] = [:]
    private var uses = 0

    /// Levels each open source keeps open, and what they may cost: a view zooming touches two or three
    /// neighbouring levels; an OpenSlide level holds a 32 MB cache, a TIFF level next to nothing (the level in
    /// use stays open whatever it costs: a large JPEG 2000's is about 190 MB, OpenJPEG's state per codestream tile).
    static let openLevels = 3
    static let openBytes = 48 << 20

    init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// The open source of `record`'s version, opened now if it is not (and checked still to be a pyramid).
    func source(of record: ImageRecord) throws -> PyramidalSource {
        let key = record.id + "/" + record.version
        if let source = cached(key) { return source }
        // Opened outside the lock: another image's requests must not wait for this one's header.
        guard let source = try PyramidalSource.probe(path: record.sourcePath, openLevels: Self.openLevels,
                                                      openBytes: Self.openBytes) else {
            throw APIError(500, "render_failed", "the source of \(record.id) is no longer a pyramid that can be served directly")
        }
        lock.lock()
        defer { lock.unlock() }
        if let existing = open[key] { return existing.source }  // opened meanwhile by another request
        uses += 1
        open[key] = (source, uses)
        if open.count > capacity, let oldest = open.min(by: { $0.value.used < $1.value.used }) {
            open[oldest.key] = nil
        }
        return source
    }

    private func cached(_ key: String) -> PyramidalSource? {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = open[key] else { return nil }
        uses += 1
        entry.used = uses
        open[key] = entry
        return entry.source
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return open.count
    }
}
