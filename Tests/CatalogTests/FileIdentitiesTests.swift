import Foundation
import Testing
@testable import Catalog

/// The catalog's file -> id bindings: given once, never moved, never reused, migrated with their ratings.
@Suite struct FileIdentitiesTests {
    let folder: TemporaryFolder
    let ratings: SQLiteRatingStore
    let identities: FileIdentities

    init() throws {
        folder = try TemporaryFolder()
        ratings = try SQLiteRatingStore(dataFolder: folder.path)
        identities = FileIdentities(database: ratings.database)
    }

    @Test func aFolderSeenForTheFirstTimeGetsTheSameIdsInAnyOrder() throws {
        let names = ["tiger.png", "Tiger.jpg", "tiger.jpg", "tiger-png.gif"]
        let ids = try identities.ids(for: names)
        let otherFolder = try TemporaryFolder()
        let other = FileIdentities(database: try SQLiteRatingStore(dataFolder: otherFolder.path).database)
        #expect(try other.ids(for: names.reversed()) == ids)
        #expect(ids["Tiger.jpg"] == "tiger")  // "T" sorts before "t"
        #expect(ids["tiger-png.gif"] == "tiger-png")  // plain slugs first
        #expect(ids["tiger.jpg"] == "tiger-jpg")
        #expect(ids["tiger.png"] == "tiger-png-2")
        for id in ids.values { #expect(ImageID.isWellFormed(id)) }
    }

    @Test func idsNeverMoveWhenFilesComeAndGo() throws {
        let first = try identities.ids(for: ["Tiger 0.JPG", "tiger-0.jpg"])
        #expect(first == ["Tiger 0.JPG": "tiger-0", "tiger-0.jpg": "tiger-0-jpg"])
        // "Tiger 0.JPG" goes: the other file keeps its id; the freed slug is not handed on.
        #expect(try identities.ids(for: ["tiger-0.jpg"]) == ["tiger-0.jpg": "tiger-0-jpg"])
        #expect(try identities.ids(for: ["tiger 0.png", "tiger-0.jpg"])["tiger 0.png"] == "tiger-0-png")
        // It comes back: same id as before.
        #expect(try identities.ids(for: ["Tiger 0.JPG"]) == ["Tiger 0.JPG": "tiger-0"])
        // A newcomer whose name sorts first never steals a plain slug.
        #expect(try identities.ids(for: ["harbour.jpg"]) == ["harbour.jpg": "harbour"])
        #expect(try identities.ids(for: ["Harbour.JPG", "harbour.jpg"]) == ["Harbour.JPG": "harbour-jpg", "harbour.jpg": "harbour"])
    }

    @Test func bindingsAreKeptInTheCatalogAcrossProcesses() throws {
        _ = try identities.ids(for: ["dup.jpg", "dup.png"])
        let reopened = FileIdentities(database: try SQLiteRatingStore(dataFolder: folder.path).database)
        #expect(try reopened.id(of: "dup.png") == "dup-png")
        #expect(try reopened.id(of: "never.jpg") == nil)
        // A binding made by another connection is found, not duplicated.
        _ = try reopened.ids(for: ["new.jpg"])
        #expect(try identities.ids(for: ["new.jpg"]) == ["new.jpg": "new"])
    }

    @Test func countersContinuePastEveryTakenCandidate() throws {
        let names = ["a.jpg", "A.jpg", "a!.jpg", "a?.jpg", "a .jpg"]
        let ids = try identities.ids(for: names)
        #expect(Set(ids.values).count == names.count)
        #expect(Set(ids.values) == ["a", "a-jpg", "a-jpg-2", "a-jpg-3", "a-jpg-4"])
    }

    @Test func aMigratedCatalogKeepsEveryRatingWithItsFile() throws {
        // A catalog as the previous release left it: schema 1, ids computed from the folder's names.
        let old = try TemporaryFolder()
        let path = old.file(CatalogSchema.fileName)
        let v1 = try Database(path: path, migrations: Array(CatalogSchema.migrations.prefix(1)))
        let folderNames = ["Tiger 0.JPG", "tiger-0.jpg", "café ñ.jpg", "dup.jpg", "dup.png"]
        let legacy = ImageID.legacyAssign(folderNames)
        #expect(legacy["café ñ.jpg"] == "caf" && legacy["tiger-0.jpg"] == "tiger-0-jpg")
        let v1Ratings = SQLiteRatingStore(database: v1)
        try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("tiger-0"), .integer(9)) }
        try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("tiger-0-jpg"), .integer(2)) }
        try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("caf"), .integer(5)) }
        try v1Ratings.recordSeen(["dup", "dup-png"])
        try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("gone"), .integer(4)) }  // a file removed before the upgrade
        v1.close()

        let migrated = try SQLiteRatingStore(dataFolder: old.path)
        let ids = try FileIdentities(database: migrated.database).ids(for: folderNames)
        #expect(ids == legacy)
        #expect(try migrated.rating(for: ids["Tiger 0.JPG"]!) == 9)
        #expect(try migrated.rating(for: ids["tiger-0.jpg"]!) == 2)
        #expect(try migrated.rating(for: ids["café ñ.jpg"]!) == 5)
        // The leftover id stays reserved: a later file named like it does not inherit its rating.
        let later = try FileIdentities(database: migrated.database).ids(for: folderNames + ["Gone.png"])
        #expect(later["Gone.png"] == "gone-png")
        #expect(try FileIdentities(database: migrated.database).ids(for: ["gone.jpg"]) == ["gone.jpg": "gone-jpg"])
    }

    /// A folder of many colliding names in one batch: every file gets its own well-formed id,
    /// and the next scan (all names known) finds the same ones without writing.
    @Test func tenThousandCollidingNamesGetDistinctIds() throws {
        let names = (0..<10_000).map { index in
            ["Photo \(index % 2500).JPG", "photo-\(index % 2500).jpg", "photo_\(index % 2500).png", "PHOTO \(index % 2500).tif"][index / 2500]
        }
        let ids = try identities.ids(for: names)
        #expect(ids.count == names.count)
        #expect(Set(ids.values).count == names.count)
        #expect(ids.values.allSatisfy(ImageID.isWellFormed))
        #expect(ids["PHOTO 7.tif"] == "photo-7")  // "H" sorts before "h"
        #expect(try identities.ids(for: names.shuffled()) == ids)
    }
}
