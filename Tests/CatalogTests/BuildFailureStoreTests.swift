import Foundation
import Testing
@testable import Catalog

/// Failed builds are remembered with the file's fingerprint, in the catalog, across reopening.
@Suite struct BuildFailureStoreTests {
    func store(_ folder: String) throws -> SQLiteBuildFailureStore {
        try SQLiteBuildFailureStore(database: Database(path: folder + "/" + CatalogSchema.fileName,
                                                       migrations: CatalogSchema.migrations))
    }

    @Test func aFailureIsKnownOnlyForItsOwnFileVersion() throws {
        let folder = try TemporaryFolder()
        let failures = try store(folder.path)
        try failures.record(BuildFailure(fileName: "a.jpg", version: "v1", reason: "a.jpg: Premature end of JPEG file"))
        #expect(try failures.failure(fileName: "a.jpg", version: "v1")?.reason == "a.jpg: Premature end of JPEG file")
        #expect(try failures.failure(fileName: "a.jpg", version: "v2") == nil)
        #expect(try failures.failure(fileName: "b.jpg", version: "v1") == nil)
        // A newer failure of the same file replaces the older one.
        try failures.record(BuildFailure(fileName: "a.jpg", version: "v2", reason: "a.jpg: bad"))
        #expect(try failures.failure(fileName: "a.jpg", version: "v1") == nil)
        #expect(try failures.failure(fileName: "a.jpg", version: "v2")?.reason == "a.jpg: bad")
        // Kept in the file: a reopened catalog still knows.
        #expect(try store(folder.path).failure(fileName: "a.jpg", version: "v2")?.reason == "a.jpg: bad")
        try failures.forget(fileName: "a.jpg")
        #expect(try failures.failure(fileName: "a.jpg", version: "v2") == nil)
    }

    @Test func namesAndReasonsAreStoredAsTheyAre() throws {
        let folder = try TemporaryFolder()
        let failures = try store(folder.path)
        let odd = "it's \"odd\"; DROP TABLE images; -- ü 🎞.png"
        try failures.record(BuildFailure(fileName: odd, version: "0123456789abcdef", reason: String(repeating: "x", count: 5000)))
        #expect(try failures.failure(fileName: odd, version: "0123456789abcdef")?.reason.count == 5000)
    }
}
