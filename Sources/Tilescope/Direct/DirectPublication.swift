import Foundation
import Imaging
import ScrollGeometry

/// Which sources are served from their own levels instead of being built (`--pyramidal-sources`, and per file
/// the images folder's `pyramidal-sources.json`: `SourceServingRules`).
public enum PyramidalSourcesMode: String, Sendable, CaseIterable {
    /// A source that already is a pyramid (`PyramidalSource.probe`) is served directly; others are built.
    case auto
    /// Every source is built, pyramids too (their tiles then come from files, at the cost of a build and a copy).
    case build
    /// Served directly, never built: a source that is not a pyramid fails with the reason instead of being copied.
    case direct
}

/// Publishes a source that already is a pyramid without building it: a version folder with the Deep Zoom
/// descriptor, the preview (the preview level's pixels, read from the source's nearest level), a slide's
/// associated images (`AssociatedImages`) and a manifest marked `direct`, all levels ready. No tile is written: each is cut from the source when asked
/// (`DirectTiles`). For a 2 GB slide this takes the time of one read of its smallest level, not a build.
struct DirectPublication: Sendable {
    let store: any PyramidStore
    /// Where the sources served are kept open: a source probed to be published is kept there for its tiles.
    let sources: DirectSources
    /// Each file's rule: direct, build, or direct where it is a pyramid.
    let rules: SourceServingRules
    let quality: Int
    let previewMaxSide: Int

    init(store: any PyramidStore, sources: DirectSources, rules: SourceServingRules, quality: Int = 85,
         previewMaxSide: Int = 1024) {
        self.store = store
        self.sources = sources
        self.rules = rules
        self.quality = quality
        self.previewMaxSide = previewMaxSide
    }

    /// What becomes of a source.
    enum Decision {
        case build
        /// A pyramid, served from its own levels.
        case direct(PyramidalSource)
        /// Its rule is `direct` and it is not a pyramid: the reason, for the image's status.
        case refused(String)
    }

    /// Whether `record`'s source is served directly (probed with the bounds of `DirectSources`), by its rule.
    func decision(for record: ImageRecord) -> Decision {
        let rule = rules.rule(forFile: record.fileName)
        guard rule.mode != .build else { return .build }
        let why: String
        do {
            if let source = try sources.probe(record) { return .direct(source) }
            why = "it is not a pyramid (a tiled TIFF of two levels or more, an OpenSlide slide, a JPEG 2000 with resolution levels)"
        } catch {
            why = "it cannot be read as a pyramid: \(error)"
        }
        guard rule.mode == .direct else { return .build }
        return .refused("\(record.fileName) is not served: \(rule.from) says direct, never built, and \(why); "
                        + "say build or auto to build it")
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
