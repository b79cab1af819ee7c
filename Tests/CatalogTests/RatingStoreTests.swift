import CSQLite
import Foundation
import Testing
@testable import Catalog

@Suite struct RatingStoreTests {
    let folder: TemporaryFolder
    let store: SQLiteRatingStore

    init() throws {
        folder = try TemporaryFolder()
        store = try SQLiteRatingStore(dataFolder: folder.path)
    }

    @Test func opensCatalogSqliteInTheDataFolderAtTheLatestSchema() throws {
        #expect(store.database.path == folder.file("catalog.sqlite"))
        #expect(FileManager.default.fileExists(atPath: folder.file("catalog.sqlite")))
        #expect(try store.database.schemaVersion() == CatalogSchema.migrations.count)
    }

    @Test func ratingsRoundTrip() throws {
        #expect(try store.rating(for: "tiger") == nil)
        try store.setRating(7, for: "tiger")
        #expect(try store.rating(for: "tiger") == 7)
        try store.setRating(0, for: "tiger")
        #expect(try store.rating(for: "tiger") == 0)
        try store.setRating(10, for: "tiger")
        #expect(try store.rating(for: "tiger") == 10)
        try store.removeRating(for: "tiger")
        #expect(try store.rating(for: "tiger") == nil)
        try store.removeRating(for: "never-seen") // nothing to do, no error
        #expect(try store.rating(for: "never-seen") == nil)
    }

    @Test func ratingsForManyIdsListOnlyTheRatedOnes() throws {
        try store.setRating(3, for: "a")
        try store.setRating(9, for: "b")
        try store.setRating(5, for: "c")
        try store.removeRating(for: "c")
        try store.recordSeen(["d"])
        #expect(try store.ratings(for: ["a", "b", "c", "d", "unknown", "a"]) == ["a": 3, "b": 9])
        #expect(try store.ratings(for: []) == [:])
        // Ids with JSON-special characters survive the json_each round trip.
        let odd = "quote\" back\\slash ü 🐯 ,]"
        try store.setRating(4, for: odd)
        #expect(try store.ratings(for: [odd, "a"]) == [odd: 4, "a": 3])
    }

    @Test(arguments: [-1, 11, 100, Int.max, Int.min])
    func outOfRangeRatingsAreRefusedAndChangeNothing(value: Int) throws {
        try store.setRating(6, for: "tiger")
        #expect(throws: RatingError.outOfRange(value)) { try store.setRating(value, for: "tiger") }
        #expect(throws: RatingError.outOfRange(value)) { try store.setRating(value, for: "new") }
        #expect(try store.rating(for: "tiger") == 6)
        #expect(try store.addedDates(for: ["new"]) == [:])
    }

    @Test func emptyIdsAreRefusedEverywhere() throws {
        #expect(throws: RatingError.emptyID) { try store.rating(for: "") }
        #expect(throws: RatingError.emptyID) { try store.setRating(5, for: "") }
        #expect(throws: RatingError.emptyID) { try store.removeRating(for: "") }
        #expect(throws: RatingError.emptyID) { try store.recordSeen(["ok", ""]) }
        #expect(throws: RatingError.emptyID) { try store.forget("") }
        #expect(try store.addedDates(for: ["ok"]) == [:]) // the refused batch wrote nothing
    }

    @Test func errorMessagesSayWhatIsAllowed() {
        #expect(RatingError.outOfRange(11).description == "rating 11 is out of range: a rating is a whole number from 0 to 10")
        #expect(RatingError.emptyID.description == "an image id cannot be empty")
        #expect(Rating.range == 0...10)
    }

    /// The table's CHECK constraints hold even for writers that bypass the Swift validation.
    @Test func theSchemaRefusesBadRatingsFromAnyWriter() throws {
        for bad: DatabaseValue in [.integer(11), .integer(-1), .real(5.5), .text("seven")] {
            let error = try #require(throws: DatabaseError.self) {
                try store.database.write {
                    try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES ('x', 0, ?)", bad)
                }
            }
            #expect(error.code == SQLITE_CONSTRAINT | (1 << 8)) // SQLITE_CONSTRAINT_CHECK, a macro Swift does not import
        }
    }

    @Test func theAddedDateIsTheFirstTimeAnIdWasSeen() throws {
        let early = Date(timeIntervalSince1970: 1_700_000_000.123)
        let later = early.addingTimeInterval(3600)
        #expect(try store.recordSeen(["a", "b"], at: early) == ["a": early, "b": early])
        #expect(try store.recordSeen(["b", "c", "c"], at: later) == ["b": early, "c": later])
        #expect(try store.addedDates(for: ["a", "b", "c", "zzz"]) == ["a": early, "b": early, "c": later])
        #expect(try store.recordSeen([]) == [:])
        #expect(try store.addedDates(for: []) == [:])

        // Rating an unseen id records it as added now; rating a seen one keeps its date.
        let before = Date()
        try store.setRating(2, for: "d")
        try store.setRating(2, for: "a")
        let added = try store.addedDates(for: ["a", "d"])
        #expect(added["a"] == early)
        #expect(try #require(added["d"]) >= before.addingTimeInterval(-0.001))
    }

    @Test func forgetDeletesRatingAndAddedDate() throws {
        try store.recordSeen(["a"], at: Date(timeIntervalSince1970: 1))
        try store.setRating(8, for: "a")
        try store.forget("a")
        #expect(try store.rating(for: "a") == nil)
        #expect(try store.addedDates(for: ["a"]) == [:])
        try store.forget("a") // idempotent
    }

    @Test func ratingsSurviveReopening() throws {
        try store.setRating(9, for: "tiger")
        try store.recordSeen(["lion"], at: Date(timeIntervalSince1970: 42))
        store.database.close()
        let reopened = try SQLiteRatingStore(dataFolder: folder.path)
        #expect(try reopened.rating(for: "tiger") == 9)
        #expect(try reopened.addedDates(for: ["lion"]) == ["lion": Date(timeIntervalSince1970: 42)])
    }

    /// 200 updates from 200 threads: 100 to ten shared ids (racing), 100 to ids of their own.
    @Test func concurrentUpdatesNeverFailAndEndConsistent() throws {
        let store = self.store
        let errors = Locked<[String]>([])
        onManyThreads(200) { index in
            do {
                let id = index.isMultiple(of: 2) ? "shared-\(index / 2 % 10)" : "own-\(index)"
                try store.setRating(index % 11, for: id)
                // Each thread reads something on the scale back, whoever won the race.
                guard let read = try store.rating(for: id), Rating.range.contains(read) else {
                    throw RatingError.outOfRange(-1)
                }
            } catch {
                errors.mutate { $0.append("\(error)") }
            }
        }
        #expect(errors.value == [])

        let ownIDs = (0..<200).filter { !$0.isMultiple(of: 2) }
        let own = try store.ratings(for: ownIDs.map { "own-\($0)" })
        #expect(own == Dictionary(uniqueKeysWithValues: ownIDs.map { ("own-\($0)", $0 % 11) }))

        // Each shared id holds one of the values written to it.
        let shared = try store.ratings(for: (0..<10).map { "shared-\($0)" })
        #expect(shared.count == 10)
        for (id, rating) in shared {
            let slot = Int(id.dropFirst("shared-".count))!
            let written = (0..<200).filter { $0.isMultiple(of: 2) && $0 / 2 % 10 == slot }.map { $0 % 11 }
            #expect(written.contains(rating), "\(id) = \(rating), written: \(written)")
        }

        // A second connection sees the same values, and the file is sound.
        let other = try SQLiteRatingStore(dataFolder: folder.path)
        #expect(try other.ratings(for: shared.keys.sorted()) == shared)
        #expect(try other.database.read { try $0.query("PRAGMA integrity_check")[0][0] } == "ok")
    }
}
