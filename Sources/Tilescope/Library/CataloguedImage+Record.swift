import Catalog
import Imaging
import ScrollGeometry

/// Turning library records into what the catalog remembers of them, and back at start.
extension CataloguedImage {
    /// What to remember of `record`; nil for one with nothing worth serving from memory at the next
    /// start (no header: it failed to read; failed builds are judged again by the scan).
    init?(_ record: ImageRecord) {
        guard let header = record.header ?? record.manifest.map({ ImageHeader(width: $0.width, height: $0.height, bands: 3) }) else {
            return nil
        }
        switch record.status {
        case .failed: return nil
        case .queued, .building, .ready: break
        }
        self.init(id: record.id, fileName: record.fileName, size: record.stamp.size,
                  modifiedNanoseconds: record.stamp.modifiedNanoseconds, version: record.version,
                  width: header.width, height: header.height,
                  built: record.manifest.map { (tileSize: $0.tileSize, overlap: $0.overlap) },
                  alpha: record.manifest?.isTransparent ?? false, direct: record.manifest?.isDirect ?? false,
                  micronsPerPixel: record.manifest?.micronsPerPixel.map { ($0.x, $0.y) },
                  associatedImages: record.manifest?.associatedImages ?? [])
    }
}

extension ImageRecord {
    /// The record as the last run left it: ready if its pyramid was published, else queued for a build.
    init(_ image: CataloguedImage, folder: String) {
        self.init(id: image.id, fileName: image.fileName, folder: folder, version: image.version,
                  stamp: SourceFingerprint.Stamp(size: image.size, modifiedNanoseconds: image.modifiedNanoseconds),
                  header: ImageHeader(width: image.width, height: image.height, bands: 3), status: .queued)
        if let built = image.built {
            status = .ready(PyramidManifest(pyramid: Pyramid(width: image.width, height: image.height,
                                                             tileSize: built.tileSize, overlap: built.overlap),
                                            source: image.fileName, version: image.version, alpha: image.alpha,
                                            direct: image.direct,
                                            micronsPerPixel: image.micronsPerPixel.flatMap { MicronsPerPixel(checking: $0.x, $0.y) },
                                            associatedImages: image.associatedImages))
        }
        catalogued = true
    }
}
