import Catalog
import Foundation
import Imaging

/// Publishes the parts of a progressive build as the builder finishes them: the base (descriptor,
/// preview, coarse levels) with a manifest naming the levels it holds, then each finer level, so a
/// new image can be looked at long before its build ends. The server and `tilescope build` share it.
struct PartPublisher {
    let store: any PyramidStore
    let id: String
    let version: String
    let fileName: String
    let sourcePath: String
    /// True when the build reads a private copy of exactly this version (a bucket object, checked as it was
    /// downloaded): nothing can change it, and `sourcePath` is no local file to check.
    var privateCopy = false
    /// Told every manifest once it is published: partial ones first, the complete one last.
    let published: (PyramidManifest) -> Void

    /// The source no longer matches the version being built (it changed while it was read).
    struct SourceChanged: Error {}

    /// That version was already published complete (by another replica, say): nothing to add.
    struct PublishedElsewhere: Error {}

    func publish(_ part: PyramidPart) throws {
        try BuildPhases.timing(.publish) { try publishMeasured(part) }
    }

    private func publishMeasured(_ part: PyramidPart) throws {
        // The source may have changed while it was read: publish only what matches the fingerprint.
        guard privateCopy || SourceFingerprint.compute(sourcePath)?.0.value == version else { throw SourceChanged() }
        let manifest = PyramidManifest(pyramid: part.pyramid, source: fileName, version: version,
                                       readyLevels: part.levels.upperBound + 1, alpha: part.alpha)
        switch part.kind {
        case .base:
            guard try store.publish(stagingFolder: part.folder, manifest: manifest, id: id, version: version)
            else { throw PublishedElsewhere() }
        case .level:
            do {
                try store.publishLevel(part.levels.lowerBound, from: part.folder, manifest: manifest, id: id, version: version)
            } catch where store.manifest(id: id, version: version) != nil {
                // Lost a race to a builder the store's hold did not keep out (another host on a shared
                // folder, say): its whole pyramid of this same version is there, and is adopted.
                throw PublishedElsewhere()
            }
        }
        published(manifest)
    }
}
