import Catalog
import Imaging
import ScrollGeometry

/// One source image as the server knows it: where it comes from, which version of it
/// is current, and how far its pyramid has got.
public struct ImageRecord: Sendable {
    public let id: String
    public var fileName: String
    public var sourcePath: String
    /// The source's fingerprint: names its pyramid folder and versions its URLs.
    public let version: String
    public var stamp: SourceFingerprint.Stamp
    /// From the header; nil when libvips cannot read the file.
    public var header: ImageHeader?
    public var status: ImageStatus
    /// While a progressive build runs: the part of the pyramid already published (the descriptor,
    /// the preview and the levels its `readyLevels` names). Nil otherwise.
    public var partial: PyramidManifest?
    /// The public URLs of this version, made once: every viewport answer and image listing needs them.
    public let urls: PyramidURLs
    /// Whether the catalog remembers this version in this state (`ImageCatalogStore`); a new version
    /// or a status of another name clears it, and `LibrarySync` saves such records after each scan.
    var catalogued = false

    public init(id: String, fileName: String, sourcePath: String, version: String, stamp: SourceFingerprint.Stamp,
                header: ImageHeader?, status: ImageStatus) {
        self.id = id
        self.fileName = fileName
        self.sourcePath = sourcePath
        self.version = version
        self.stamp = stamp
        self.header = header
        self.status = status
        urls = PyramidURLs(imageID: id, version: version)
    }

    /// The pyramid geometry, known from the header even before the pyramid exists.
    public var pyramid: Pyramid? {
        if case .ready(let manifest) = status { return manifest.pyramid }
        guard let header, header.width > 0, header.height > 0 else { return nil }
        return Pyramid(width: header.width, height: header.height)
    }

    public var manifest: PyramidManifest? {
        if case .ready(let manifest) = status { return manifest }
        return nil
    }

    /// What may be served: the whole pyramid once ready, the published part while building.
    public var servedManifest: PyramidManifest? {
        switch status {
        case .ready(let manifest): return manifest
        case .queued, .building: return partial
        case .failed: return nil
        }
    }
}

/// Where an image's pyramid stands.
public enum ImageStatus: Sendable {
    case queued
    case building(BuildProgress)
    case ready(PyramidManifest)
    case failed(String)

    public var name: String {
        switch self {
        case .queued, .building: return "building"
        case .ready: return "ready"
        case .failed: return "failed"
        }
    }
}
