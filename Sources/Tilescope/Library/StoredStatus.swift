import Imaging
import ScrollGeometry

/// An `ImageStatus` as an `ImageRecord` keeps it.
///
/// A ready record's manifest repeats the record's file name and version; kept whole it would be
/// ~90 bytes inline and a version string on the heap per image. When it is the record's own (made by
/// `PyramidManifest.init` from the record's name and version) only its geometry is kept, and the
/// manifest is made again when asked; any other manifest is kept whole, out of line.
enum StoredStatus: Sendable {
    case queued
    case building(BuildProgress)
    case failed(String)
    case ready(ReadyGeometry)
    case readyOther(WholeManifest)

    /// The geometry of a ready pyramid whose manifest is the record's own.
    struct ReadyGeometry: Sendable {
        let width: Int32
        let height: Int32
        let tileSize: Int32
        let overlap: Int32
        /// -1 for nil (every level).
        let readyLevels: Int32
        /// `PyramidManifest.isTransparent`.
        let alpha: Bool
    }

    final class WholeManifest: Sendable {
        let manifest: PyramidManifest
        init(_ manifest: PyramidManifest) { self.manifest = manifest }
    }

    init(_ status: ImageStatus, source: String, version: SourceVersion) {
        switch status {
        case .queued: self = .queued
        case .building(let progress): self = .building(progress)
        case .failed(let reason): self = .failed(reason)
        case .ready(let manifest):
            if let geometry = Self.geometry(of: manifest, source: source, version: version) {
                self = .ready(geometry)
            } else {
                self = .readyOther(WholeManifest(manifest))
            }
        }
    }

    func status(source: String, version: SourceVersion) -> ImageStatus {
        switch self {
        case .queued: return .queued
        case .building(let progress): return .building(progress)
        case .failed(let reason): return .failed(reason)
        case .ready(let geometry): return .ready(Self.manifest(geometry, source: source, version: version.text))
        case .readyOther(let whole): return .ready(whole.manifest)
        }
    }

    /// `ImageStatus.name`, without making the status.
    var name: String {
        switch self {
        case .queued, .building: return "building"
        case .ready, .readyOther: return "ready"
        case .failed: return "failed"
        }
    }

    private static func manifest(_ geometry: ReadyGeometry, source: String, version: String) -> PyramidManifest {
        PyramidManifest(pyramid: Pyramid(width: Int(geometry.width), height: Int(geometry.height),
                                         tileSize: Int(geometry.tileSize), overlap: Int(geometry.overlap)),
                        source: source, version: version,
                        readyLevels: geometry.readyLevels < 0 ? nil : Int(geometry.readyLevels), alpha: geometry.alpha)
    }

    /// The geometry, if the manifest made again from it is `manifest` itself.
    private static func geometry(of manifest: PyramidManifest, source: String, version: SourceVersion) -> ReadyGeometry? {
        guard manifest.width > 0, manifest.height > 0, manifest.tileSize > 0, manifest.overlap >= 0,  // else `Pyramid` traps
              manifest.source == source, SourceVersion(manifest.version) == version,
              let width = Int32(exactly: manifest.width), let height = Int32(exactly: manifest.height),
              let tileSize = Int32(exactly: manifest.tileSize), let overlap = Int32(exactly: manifest.overlap),
              let readyLevels = manifest.readyLevels.map(Int32.init(exactly:)) ?? -1 else { return nil }
        // The round trip decides: a manifest that would come back any different is kept whole.
        let geometry = ReadyGeometry(width: width, height: height, tileSize: tileSize, overlap: overlap, readyLevels: readyLevels,
                                     alpha: manifest.isTransparent)
        guard Self.manifest(geometry, source: manifest.source, version: manifest.version) == manifest else { return nil }
        return geometry
    }
}
