import Foundation
import Imaging
import ScrollGeometry

/// Which sources are served from their own levels instead of being built (`--pyramidal-sources`).
public enum PyramidalSourcesMode: String, Sendable, CaseIterable {
    /// A source that already is a pyramid (`PyramidalSource.probe`) is served directly; others are built.
    case auto
    /// Every source is built, pyramids too (their tiles then come from files, at the cost of a build and a copy).
    case build
}

/// Publishes a source that already is a pyramid without building it: a version folder with the Deep Zoom
/// descriptor, the preview (the preview level's pixels, read from the source's nearest level), a slide's
/// associated images (`AssociatedImages`) and a manifest marked `direct`, all levels ready. No tile is written: each is cut from the source when asked
/// (`DirectTiles`). For a 2 GB slide this takes the time of one read of its smallest level, not a build.
struct DirectPublication: Sendable {
    let store: any PyramidStore
    /// Where the sources served are kept open: a source probed to be published is kept there for its tiles.
    let sources: DirectSources
    let quality: Int
    let previewMaxSide: Int

    init(store: any PyramidStore, sources: DirectSources, quality: Int = 85, previewMaxSide: Int = 1024) {
        self.store = store
        self.sources = sources
        self.quality = quality
        self.previewMaxSide = previewMaxSide
    }

    /// `record`'s source, when it is a pyramid to serve directly (read with the bounds of `DirectSources`).
    func source(of record: ImageRecord) -> PyramidalSource? {
        try? DirectSources.probe(record.sourcePath)
    }

    /// The manifest published for `record` from `source`, which is then kept open for its tiles; throws what
    /// stopped it (the staging folder is dropped).
    func publish(_ record: ImageRecord, from source: PyramidalSource) throws -> PyramidManifest {
        let pyramid = Pyramid(width: source.width, height: source.height)
        let folder = try store.makeStagingFolder(id: record.id, version: record.version)
        do {
            let level = pyramid.previewLevel(maxSide: previewMaxSide)
            let preview = try source.read(PixelRect(x: 0, y: 0, width: source.width, height: source.height),
                                          size: pyramid.size(ofLevel: level))
            try preview.saveJPEG(to: (folder as NSString).appendingPathComponent(PyramidBuilder.previewName), quality: quality)
            try Imaging.DeepZoomDescriptor.xml(of: pyramid).write(
                toFile: (folder as NSString).appendingPathComponent(PyramidBuilder.descriptorName), atomically: false,
                encoding: .utf8)
            let associated = AssociatedImages.publish(from: source, into: folder, quality: quality)
            let manifest = PyramidManifest(pyramid: pyramid, source: record.fileName, version: record.version, direct: true,
                                           micronsPerPixel: source.micronsPerPixel.flatMap { MicronsPerPixel(checking: $0.x, $0.y) },
                                           associatedImages: associated)
            guard try store.publish(stagingFolder: folder, manifest: manifest, id: record.id, version: record.version) else {
                store.discard(stagingFolder: folder)
                return store.manifest(id: record.id, version: record.version) ?? manifest
            }
            sources.keep(source, for: record)
            return manifest
        } catch {
            store.discard(stagingFolder: folder)
            throw error
        }
    }
}
