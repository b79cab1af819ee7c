import Catalog
import Imaging
import ScrollGeometry

/// One source image as the server knows it: where it comes from, which version of it
/// is current, and how far its pyramid has got.
///
/// The library holds one per image, 100,000 in a large gallery, so a record keeps no heap object of
/// its own where it can help it (docs/gallery-scale.md): the version is kept as its 64-bit value, the
/// source path and the URLs are made from the folder, the name and the version when asked, and a ready
/// pyramid is kept as its geometry. Each heap object per record also pinned the memory around it.
public struct ImageRecord: Sendable {
    public let id: String
    public let fileName: String
    /// The images folder (one string shared by every record of a scan), or the whole source path for
    /// a record made with a path that does not end in `/fileName`.
    private let location: String
    private let locationIsFolder: Bool
    private let storedVersion: SourceVersion
    public var stamp: SourceFingerprint.Stamp
    /// From the header; nil when libvips cannot read the file.
    public var header: ImageHeader?
    private var storedStatus: StoredStatus
    private var partialBox: PartialManifest?
    /// Whether the catalog remembers this version in this state (`ImageCatalogStore`); a new version
    /// or a status of another name clears it, and `LibrarySync` saves such records after each scan.
    var catalogued = false

    /// A record of the file `fileName` in the images folder `folder`.
    public init(id: String, fileName: String, folder: String, version: String, stamp: SourceFingerprint.Stamp,
                header: ImageHeader?, status: ImageStatus) {
        // Without its trailing slash (a new string only then): the path is `location/fileName`.
        self.init(id: id, fileName: fileName, location: folder.hasSuffix("/") ? String(folder.dropLast()) : folder,
                  locationIsFolder: true, version: version, stamp: stamp, header: header, status: status)
    }

    /// A record of the source file at `sourcePath`, named `fileName`.
    public init(id: String, fileName: String, sourcePath: String, version: String, stamp: SourceFingerprint.Stamp,
                header: ImageHeader?, status: ImageStatus) {
        let suffix = "/" + fileName
        let folder = sourcePath.dropLast(suffix.count)
        let inFolder = !fileName.isEmpty && sourcePath.hasSuffix(suffix) && !folder.hasSuffix("/")
        self.init(id: id, fileName: fileName, location: inFolder ? String(folder) : sourcePath, locationIsFolder: inFolder,
                  version: version, stamp: stamp, header: header, status: status)
    }

    private init(id: String, fileName: String, location: String, locationIsFolder: Bool, version: String,
                 stamp: SourceFingerprint.Stamp, header: ImageHeader?, status: ImageStatus) {
        self.id = id
        self.fileName = fileName
        self.location = location
        self.locationIsFolder = locationIsFolder
        storedVersion = SourceVersion(version)
        self.stamp = stamp
        self.header = header
        storedStatus = StoredStatus(status, source: fileName, version: storedVersion)
    }

    public var sourcePath: String {
        guard locationIsFolder else { return location }
        return location + "/" + fileName
    }

    /// The source's fingerprint: names its pyramid folder and versions its URLs.
    public var version: String { storedVersion.text }

    /// Whether this record is of `version` (no string is made for the comparison).
    public func isVersion(_ version: String) -> Bool { storedVersion == SourceVersion(version) }

    /// Whether both records are of the same source version.
    func hasSameVersion(as other: ImageRecord) -> Bool { storedVersion == other.storedVersion }

    /// The public URLs of this version: every viewport answer and image listing needs them.
    public var urls: PyramidURLs { PyramidURLs(imageID: id, version: version) }

    public var status: ImageStatus {
        get { storedStatus.status(source: fileName, version: storedVersion) }
        set { storedStatus = StoredStatus(newValue, source: fileName, version: storedVersion) }
    }

    /// The status's name, without making the status.
    var statusName: String { storedStatus.name }

    /// Whether the status is `.queued`, without making the status.
    var isQueued: Bool {
        if case .queued = storedStatus { return true }
        return false
    }

    /// While a progressive build runs: the part of the pyramid already published (the descriptor,
    /// the preview and the levels its `readyLevels` names). Nil otherwise.
    public var partial: PyramidManifest? {
        get { partialBox?.manifest }
        set { partialBox = newValue.map(PartialManifest.init) }
    }

    /// The pyramid geometry, known from the header even before the pyramid exists.
    public var pyramid: Pyramid? {
        if case .ready(let geometry) = storedStatus {
            return Pyramid(width: Int(geometry.width), height: Int(geometry.height), tileSize: Int(geometry.tileSize),
                           overlap: Int(geometry.overlap))
        }
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

/// A progressive build's published part: rare (only while building), so kept out of line.
private final class PartialManifest: Sendable {
    let manifest: PyramidManifest
    init(_ manifest: PyramidManifest) { self.manifest = manifest }
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
