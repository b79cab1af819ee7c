@testable import Catalog
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// The library's own rules, without a server: what a scan may and may not overwrite.
@Suite struct ImageLibraryTests {
    static func record(_ id: String, version: String, status: ImageStatus) -> ImageRecord {
        ImageRecord(id: id, fileName: "\(id).jpg", sourcePath: "/nowhere/\(id).jpg", version: version,
                    stamp: SourceFingerprint.Stamp(size: 1, modifiedNanoseconds: 1),
                    header: ImageHeader(width: 10, height: 10, bands: 3), status: status)
    }

    static let manifest = PyramidManifest(pyramid: Pyramid(width: 10, height: 10), source: "a.jpg", version: "v1")

    /// Issue #18, item 6, step by step: a scan copies the records, a build then finishes, and the
    /// scan publishes its copy. The finished build must survive.
    @Test func aScansStaleCopyNeverUndoesABuildReport() {
        let library = ImageLibrary()
        library.replaceAll([Self.record("a", version: "v1", status: .queued)])
        let scansCopy = library.all
        library.update("a", version: "v1") { $0.status = .ready(Self.manifest) }
        library.replaceAll(scansCopy)
        #expect(library.record("a")?.status.name == "ready")

        // Progress reports survive the same way, and a failure too.
        library.replaceAll([Self.record("b", version: "v1", status: .queued)])
        let copy = library.all
        library.update("b", version: "v1") { $0.status = .failed("libvips cannot read b.jpg") }
        library.replaceAll(copy)
        guard case .failed(let reason) = library.record("b")?.status else {
            Issue.record("b lost its failure")
            return
        }
        #expect(reason == "libvips cannot read b.jpg")
    }

    @Test func aNewVersionReplacesTheOldStatusAndAPublishedPyramidIsAFact() {
        let library = ImageLibrary()
        library.replaceAll([Self.record("a", version: "v1", status: .ready(Self.manifest))])
        library.replaceAll([Self.record("a", version: "v2", status: .queued)])
        #expect(library.record("a")?.version == "v2")
        #expect(library.record("a")?.status.name == "building")
        // The scan found v2's pyramid published: ready, whatever the library thought.
        let v2 = PyramidManifest(pyramid: Pyramid(width: 10, height: 10), source: "a.jpg", version: "v2")
        library.replaceAll([Self.record("a", version: "v2", status: .ready(v2))])
        #expect(library.record("a")?.status.name == "ready")
        // A record the scan leaves out is gone.
        library.replaceAll([])
        #expect(library.record("a") == nil)
        #expect(library.all.isEmpty)
    }

    /// A first scan adds its files a batch at a time: records added in one call (merged into the
    /// array) and changed ones come out in id order, each found by its id, none twice.
    @Test func recordsAddedInBatchesStayInIdOrder() {
        let library = ImageLibrary()
        library.apply(changed: ["m", "c", "x"].map { Self.record($0, version: "v1", status: .queued) }, removed: [])
        let generation = library.membershipGeneration
        library.apply(changed: ["z", "a", "n", "d", "c"].map { Self.record($0, version: $0 == "c" ? "v2" : "v1", status: .queued) },
                      removed: ["x"])
        #expect(library.all.map(\.id) == ["a", "c", "d", "m", "n", "z"])
        #expect(library.record("c")?.version == "v2")
        #expect(library.record("x") == nil)
        #expect(["a", "c", "d", "m", "n", "z"].allSatisfy { library.record($0)?.id == $0 })
        #expect(library.membershipGeneration == generation + 1)
        library.apply(changed: [Self.record("b", version: "v1", status: .queued)], removed: [])
        #expect(library.all.map(\.id) == ["a", "b", "c", "d", "m", "n", "z"])
    }
}
