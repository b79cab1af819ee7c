import Catalog
import Foundation
import Imaging
import Synchronization

/// The lossless copies (`LosslessPyramid`) of lossless sources, one per image version: written the
/// first time a request needs one, then opened once and shared by every request.
///
/// Which requests need one is `IIIFRendering.wantsSourcePixels`: a lossless format, or a region at
/// full resolution. Which sources have one: PNG, TIFF, PPM and GIF (their decoded pixels are the
/// source's) up to `maxPixels`. JPEG, WebP, HEIF and JPEG 2000 sources are lossy already, and their
/// regions keep coming from the Deep Zoom pyramid's tiles.
final class LosslessCopies: Sendable {
    /// Larger sources keep the pyramid path: writing their copy would hold a worker for minutes.
    let maxPixels: Int
    /// Opened copies kept at once (each holds open file descriptors); the rest are reopened on need.
    static let openLimit = 32
    static let fileName = "lossless.tif"

    private enum Entry {
        case writing
        case ready(LosslessPyramid)
    }

    private let entries = Mutex([String: Entry]())
    /// Wakes requests waiting for a copy another thread is writing.
    private let written = NSCondition()
    /// Which source versions are lossy (no copy, ever): found once per version, because asking libvips
    /// which loader reads a file opens and reads it once per candidate loader (about ten opens of a JPEG),
    /// and every full-resolution request asks, every aligned tile's first request among them.
    private let lossyVersions: KnownLossySources
    /// Finds the libvips loader of a source file (`ImageHeader.loader(of:)`; a seam for tests).
    private let findLoader: @Sendable (String) -> String?

    init(maxPixels: Int = 64 << 20, rememberedVersions: Int = 4096,
         findLoader: @escaping @Sendable (String) -> String? = { ImageHeader.loader(of: $0) }) {
        self.maxPixels = maxPixels
        self.findLoader = findLoader
        lossyVersions = KnownLossySources(capacity: rememberedVersions)
    }

    /// Whether `loader` (a libvips loader's nickname or class name) decodes a lossless format.
    static func isLossless(loader: String) -> Bool {
        let name = loader.lowercased()
        return ["png", "tiff", "ppm", "gif", "nsgif"].contains { stem in
            name.hasPrefix(stem + "load") || name.hasPrefix("vipsforeignload" + stem)
        }
    }

    /// Whether `record`'s version is known to have no copy (too large, or lossy as found before):
    /// `copy` then returns nil without touching a file.
    func knownToHaveNoCopy(_ record: ImageRecord) -> Bool {
        guard let header = record.header, header.pixels <= maxPixels else { return true }
        return lossyVersions.contains(Self.key(record))
    }

    /// One source version: what `lossyVersions` and `entries` are keyed by.
    private static func key(_ record: ImageRecord) -> String {
        "\(record.id)/\(record.version)"
    }

    /// The copy of `record`'s source in `folder` (its version's pyramid folder), written now if it is
    /// missing; nil when the source is lossy, too large, or changed since this version was read.
    func copy(of record: ImageRecord, in folder: String) throws -> LosslessPyramid? {
        guard !knownToHaveNoCopy(record) else { return nil }
        let key = Self.key(record)
        if entries.withLock({ $0[key] }) == nil {
            // An unreadable source (being replaced, say) is not remembered: the next request looks again.
            guard let loader = findLoader(record.sourcePath) else { return nil }
            guard Self.isLossless(loader: loader) else {
                lossyVersions.insert(key)
                return nil
            }
        }
        while true {
            let state: Entry? = entries.withLock { entries in
                let current = entries[key]
                if current == nil { entries[key] = .writing }
                return current
            }
            switch state {
            case .ready(let copy): return copy
            case .writing:
                written.lock()
                _ = written.wait(until: Date(timeIntervalSinceNow: 0.05))
                written.unlock()
                continue
            case nil:
                var result: LosslessPyramid?
                defer {
                    entries.withLock { entries in
                        if let result {
                            if entries.count > Self.openLimit { entries = entries.filter { if case .writing = $0.value { true } else { false } } }
                            entries[key] = .ready(result)
                        } else {
                            entries[key] = nil
                        }
                    }
                    written.lock(); written.broadcast(); written.unlock()
                }
                result = try open(record, path: "\(folder)/\(Self.fileName)")
                return result
            }
        }
    }

    /// Opens the copy, writing it first if needed. The source's size and modification time must be
    /// the version's before and after the write, or the copy could hold a newer source's pixels.
    private func open(_ record: ImageRecord, path: String) throws -> LosslessPyramid? {
        if access(path, R_OK) == 0 { return try LosslessPyramid(path: path) }
        // A version whose folder is gone has been replaced: no copy of a newer source goes into it.
        guard access((path as NSString).deletingLastPathComponent, W_OK) == 0,
              SourceFingerprint.Stamp.read(record.sourcePath) == record.stamp else { return nil }
        try LosslessPyramid.write(source: record.sourcePath, to: path)
        guard SourceFingerprint.Stamp.read(record.sourcePath) == record.stamp else {
            unlink(path)
            return nil
        }
        return try LosslessPyramid(path: path)
    }
}
