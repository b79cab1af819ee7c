@testable import Catalog
import Foundation
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// A record keeps its version, path and ready manifest in a compact form (docs/gallery-scale.md):
/// whatever goes in must come out exactly, whatever its shape.
@Suite struct ImageRecordStorageTests {
    static let stamp = SourceFingerprint.Stamp(size: 1, modifiedNanoseconds: 1)

    static func record(_ id: String = "a", fileName: String = "a.jpg", path: String = "/images/a.jpg",
                       version: String = "2f5e27ba1525f01b", status: ImageStatus = .queued) -> ImageRecord {
        ImageRecord(id: id, fileName: fileName, sourcePath: path, version: version, stamp: stamp,
                    header: ImageHeader(width: 10, height: 10, bands: 3), status: status)
    }

    @Test(arguments: ["2f5e27ba1525f01b", "0000000000000000", "ffffffffffffffff", "000000000000000a",
                      "2F5E27BA1525F01B", "2f5e27ba1525f01", "2f5e27ba1525f01b0", "v1", "", "2f5e27ba1525f0g1",
                      "2f5e27ba1525f0é", " 2f5e27ba1525f01"])
    func everyVersionComesBackAsGiven(version: String) {
        let record = Self.record(version: version)
        #expect(record.version == version)
        #expect(record.isVersion(version))
        #expect(!record.isVersion(version + "0"))
        #expect(record.urls == PyramidURLs(imageID: "a", version: version))
    }

    @Test func versionsCompareByValueNotByForm() {
        #expect(Self.record(version: "00000000000000ff").hasSameVersion(as: Self.record(version: "00000000000000ff")))
        #expect(!Self.record(version: "00000000000000ff").hasSameVersion(as: Self.record(version: "00000000000000FF")))
        #expect(!Self.record(version: "00000000000000ff").hasSameVersion(as: Self.record(version: "ff")))
    }

    @Test(arguments: [("a.jpg", "/images/a.jpg"), ("a.jpg", "a.jpg"), ("a.jpg", "/a.jpg"), ("a.jpg", "//a.jpg"),
                      ("a.jpg", "/images//a.jpg"), ("a.jpg", "/elsewhere/b.jpg"), ("", "/images/"),
                      ("é.jpg", "/bilder/é.jpg"), ("a.jpg", "/images/xa.jpg")])
    func everyPathComesBackAsGiven(fileName: String, path: String) {
        #expect(Self.record(fileName: fileName, path: path).sourcePath == path)
    }

    @Test func aRecordMadeFromAFolderHasThePathTheScannerWouldJoin() {
        for folder in ["/data/images", "/data/images/", "relative"] {
            let record = ImageRecord(id: "a", fileName: "a b.jpg", folder: folder, version: "v", stamp: Self.stamp,
                                     header: nil, status: .queued)
            #expect(record.sourcePath == (folder as NSString).appendingPathComponent("a b.jpg"))
        }
    }

    /// The record's own manifest is kept as geometry; any other is kept whole. Both come back equal.
    @Test func readyManifestsComeBackEqual() {
        let version = "2f5e27ba1525f01b"
        let manifests = [
            PyramidManifest(pyramid: Pyramid(width: 16, height: 12), source: "a.jpg", version: version),
            PyramidManifest(pyramid: Pyramid(width: 40000, height: 3, tileSize: 512, overlap: 0), source: "a.jpg",
                            version: version, readyLevels: 3),
            PyramidManifest(pyramid: Pyramid(width: 16, height: 12), source: "other.jpg", version: version),
            PyramidManifest(pyramid: Pyramid(width: 16, height: 12), source: "a.jpg", version: "another"),
            PyramidManifest(pyramid: Pyramid(width: Int(Int32.max) + 1, height: 1), source: "a.jpg", version: version),
            { var png = PyramidManifest(pyramid: Pyramid(width: 16, height: 12), source: "a.jpg", version: version)
              png.format = "png"
              return png }(),
            { var odd = PyramidManifest(pyramid: Pyramid(width: 16, height: 12), source: "a.jpg", version: version)
              odd.readyLevels = 99  // beyond the last level: `init` would not make it, a decoded file may
              return odd }(),
        ]
        for manifest in manifests {
            var record = Self.record(version: version, status: .ready(manifest))
            #expect(record.manifest == manifest)
            #expect(record.servedManifest == manifest)
            #expect(record.pyramid == manifest.pyramid)
            #expect(record.statusName == "ready")
            record.status = .failed("gone")
            #expect(record.manifest == nil)
            record.status = .ready(manifest)
            #expect(record.manifest == manifest)
        }
    }

    @Test func otherStatesAndThePartialManifestComeBack() {
        var record = Self.record(status: .building(BuildProgress(percent: 40, etaSeconds: 3)))
        guard case .building(let progress) = record.status else {
            Issue.record("not building")
            return
        }
        #expect(progress == BuildProgress(percent: 40, etaSeconds: 3))
        let partial = PyramidManifest(pyramid: Pyramid(width: 16, height: 12), source: "a.jpg", version: record.version,
                                      readyLevels: 2)
        record.partial = partial
        #expect(record.partial == partial)
        #expect(record.servedManifest == partial)
        record.partial = nil
        #expect(record.servedManifest == nil)
        record.status = .failed("libvips cannot read a.jpg")
        guard case .failed(let reason) = record.status else {
            Issue.record("not failed")
            return
        }
        #expect(reason == "libvips cannot read a.jpg")
        #expect(record.statusName == "failed")
    }

    /// The library finds records by a binary search in id order: inserts and removals in any order
    /// keep every id found and the removed ones listed for the catalog.
    @Test func theLibraryFindsEveryRecordAfterInsertsAndRemovals() {
        let library = ImageLibrary()
        var generator = SystemRandomNumberGenerator()
        var present: Set<String> = []
        library.replaceAll((0..<200).map { Self.record("id-\($0 * 2)", fileName: "\($0).jpg", path: "/i/\($0).jpg") })
        present = Set((0..<200).map { "id-\($0 * 2)" })
        var removedSoFar: Set<String> = []
        for _ in 0..<300 {
            let id = "id-\(Int.random(in: 0..<400, using: &generator))"
            if present.contains(id), Bool.random(using: &generator) {
                library.apply(changed: [], removed: [id])
                present.remove(id)
                removedSoFar.insert(id)
            } else {
                library.apply(changed: [Self.record(id, fileName: "\(id).jpg", path: "/i/\(id).jpg")], removed: [])
                present.insert(id)
            }
        }
        #expect(library.all.map(\.id) == present.sorted())
        for n in 0..<400 {
            #expect((library.record("id-\(n)") != nil) == present.contains("id-\(n)"))
        }
        #expect(library.record("") == nil)
        #expect(library.record("id-9999") == nil)
        let removed = Set(library.takeUncatalogued().removed)
        #expect(removed == removedSoFar)

        // A full replacement lists exactly the ids it leaves out.
        let keep = present.sorted().prefix(10)
        library.replaceAll(keep.map { Self.record($0, fileName: "\($0).jpg", path: "/i/\($0).jpg") })
        #expect(Set(library.takeUncatalogued().removed) == present.subtracting(keep))
        #expect(library.all.map(\.id) == Array(keep))
    }
}

/// The library holds one record per image inline in its array: a field added carelessly (a manifest
/// inline, a second string) shows here first (docs/gallery-scale.md).
@Suite struct ImageRecordSizeTests {
    @Test func aRecordStaysSmall() {
        #expect(MemoryLayout<ImageRecord>.stride <= 168, "\(MemoryLayout<ImageRecord>.stride) bytes")
    }
}
