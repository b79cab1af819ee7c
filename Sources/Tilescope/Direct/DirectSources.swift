import Foundation
import Imaging
import ObjectStore

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
        if let source = cached(Self.key(record)) { return source }
        // Opened outside the lock: another image's requests must not wait for this one's header.
        guard let source = try probe(record) else {
            throw APIError(500, "render_failed", "the source of \(record.id) is no longer a pyramid that can be served directly")
        }
        return keep(source, for: record)
    }

    /// The source of `record`'s version if it is open now: never opens it (for answers made on a poll thread).
    func openSource(of record: ImageRecord) -> PyramidalSource? {
        cached(Self.key(record))
    }

    /// `path` as a source served directly, with the bounds every open source has; nil when it is no pyramid.
    static func probe(_ path: String) throws -> PyramidalSource? {
        try PyramidalSource.probe(path: path, openLevels: openLevels, openBytes: openBytes)
    }

    /// The images bucket (`--images s3://`), whose sources are read by ranges, and the blocks those reads keep; nil
    /// for an images folder. Set once at start, before any request.
    nonisolated(unsafe) var bucket: (sources: BucketSources, blocks: RangeBlocks)?

    /// Names a TIFF pyramid in a bucket may have. Others are not probed (a probe is a request to the store) and are
    /// built; a slide or JPEG 2000 in a bucket is read only as a TIFF is (OpenSlide and OpenJPEG read files by name).
    static let rangedExtensions: Set<String> = ["tif", "tiff", "btf", "tf8", "svs"]

    /// `record`'s source as a source served directly: the file, or for a bucket's the object read by ranges (never
    /// downloaded whole); nil when it is no pyramid.
    func probe(_ record: ImageRecord) throws -> PyramidalSource? {
        guard let bucket else { return try Self.probe(record.sourcePath) }
        guard Self.rangedExtensions.contains((record.fileName as NSString).pathExtension.lowercased()) else { return nil }
        let ranges = try BucketObjectRanges.open(record, in: bucket.sources, blocks: bucket.blocks)
        return try PyramidalSource.probe(ranges: ranges, name: bucket.sources.location + "/" + record.fileName,
                                         openLevels: Self.openLevels, openBytes: Self.openBytes)
    }

    /// The answer for a read of `record`'s source that failed with `error` because its bucket did not answer (a
    /// probe's HEAD, a ranged GET under libvips's read), made at or after `since` (`DispatchTime` nanoseconds): 503
    /// with `Retry-After` or 502 as for any store failure; nil when the store was not the cause.
    func storeFailure(of record: ImageRecord, _ error: any Error, since: UInt64) -> APIError? {
        if let error = error as? S3Error { return APIError(store: error) }
        guard let ranges = openSource(of: record)?.ranges as? BucketObjectRanges,
              let failure = ranges.storeFailure(since: since) else { return nil }
        return APIError(store: failure)
    }

    /// Keeps `source`, opened for `record` (by its publication, say), so that its first tile does not open it again;
    /// returns the one kept (another request may have opened it meanwhile).
    @discardableResult
    func keep(_ source: PyramidalSource, for record: ImageRecord) -> PyramidalSource {
        let key = Self.key(record)
        lock.lock()
        defer { lock.unlock() }
        if let existing = open[key] { return existing.source }
        uses += 1
        open[key] = (source, uses)
        if open.count > capacity, let oldest = open.min(by: { $0.value.used < $1.value.used }) {
            open[oldest.key] = nil
        }
        return source
    }

    private static func key(_ record: ImageRecord) -> String { record.id + "/" + record.version }

    private func cached(_ key: String) -> PyramidalSource? {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = open[key] else { return nil }
        uses += 1
        entry.used = uses
        open[key] = entry
        return entry.source
    }
}
