import Foundation
import Testing
@testable import Catalog

/// The library remembered between runs: saved, replaced, forgotten, and read back across batches,
/// on both engines.
@Suite struct ImageCatalogStoreTests {

    static func image(_ i: Int, built: Bool) -> CataloguedImage {
        CataloguedImage(id: String(format: "img-%05d", i), fileName: String(format: "img-%05d.jpg", i), size: 100 + i,
                        modifiedNanoseconds: 1_000_000_007 * i, version: String(format: "%016x", i), width: 16 + i % 7,
                        height: 12, built: built ? (tileSize: 254, overlap: 1) : nil, alpha: built && i % 2 == 0,
                        direct: built && i % 5 == 0, micronsPerPixel: built && i % 5 == 0 ? (0.25 + Double(i) / 1e6, 0.5) : nil,
                        associatedImages: built && i % 10 == 0
                            ? [AssociatedImageEntry(name: "label", width: 300 + i, height: 200),
                               AssociatedImageEntry(name: "macro_\(i)", width: 800, height: 300)] : [])
    }

    @Test(arguments: CatalogEngine.allCases)
    func everyImageComesBackAcrossBatchesAndChangesReplaceOrForget(engine: CatalogEngine) throws {
        let catalog = try engine.open()
        let count = 2 * SQLImageCatalogStore.batchSize + 1  // three batches, the last of one row
        let images = (0..<count).map { Self.image($0, built: $0 % 3 != 0) }
        try SQLImageCatalogStore(database: catalog.database).save(images.reversed(), removing: [])
        let reopened = SQLImageCatalogStore(database: try catalog.reopen().database)
        #expect(try reopened.all() == images)
        // A new version replaces the row; a removal forgets it; the rest stay.
        var changed = Self.image(5, built: false)
        changed.version = "ffffffffffffffff"
        try reopened.save([changed], removing: [images[7].id, "never-there"])
        let after = try reopened.all()
        #expect(after.count == count - 1)
        #expect(after.first { $0.id == changed.id } == changed)
        #expect(!after.contains { $0.id == images[7].id })
        #expect(after.map(\.id) == after.map(\.id).sorted())
    }

    /// The list's text keeps every entry; an entry that does not read as one (a name unsafe in a path, no size) is
    /// left out, never trusted.
    @Test func associatedImagesRoundTripThroughTheirText() {
        let entries = [AssociatedImageEntry(name: "label", width: 300, height: 200),
                       AssociatedImageEntry(name: "thumb-nail_2", width: 1, height: 65536)]
        #expect(AssociatedImageEntry.entries(from: AssociatedImageEntry.text(of: entries)) == entries)
        #expect(AssociatedImageEntry.text(of: []) == nil)
        #expect(AssociatedImageEntry.entries(from: "label:300x200;../x:1x1;macro:0x5;tag:12;a b:1x1;ok:2x3")
                == [AssociatedImageEntry(name: "label", width: 300, height: 200), AssociatedImageEntry(name: "ok", width: 2, height: 3)])
    }
}
