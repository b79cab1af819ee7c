import Foundation
import Testing
@testable import Catalog

/// What every catalog engine must do the same: ratings, added dates, ids and build failures,
/// run against SQLite and against a real PostgreSQL.
@Suite struct CatalogEngineTests {
    @Test(arguments: CatalogEngine.allCases)
    func ratingsRoundTripAndListOnlyTheRatedOnes(engine: CatalogEngine) throws {
        let store = try engine.open().ratings
        #expect(try store.rating(for: "tiger") == nil)
        for value in [7, 0, 10] {
            try store.setRating(value, for: "tiger")
            #expect(try store.rating(for: "tiger") == value)
        }
        try store.removeRating(for: "tiger")
        #expect(try store.rating(for: "tiger") == nil)
        try store.removeRating(for: "never-seen")
        try store.setRating(3, for: "a")
        try store.setRating(9, for: "b")
        try store.recordSeen(["d"])
        let odd = "quote\" back\\slash ü 🐯 ,] ? $1"
        try store.setRating(4, for: odd)
        #expect(try store.ratings(for: ["a", "b", "d", "unknown", "a", odd]) == ["a": 3, "b": 9, odd: 4])
        #expect(try store.ratings(for: []) == [:])
    }

    @Test(arguments: CatalogEngine.allCases)
    func refusedInputChangesNothing(engine: CatalogEngine) throws {
        let store = try engine.open().ratings
        try store.setRating(6, for: "tiger")
        for value in [-1, 11, Int.max, Int.min] {
            #expect(throws: RatingError.outOfRange(value)) { try store.setRating(value, for: "tiger") }
            #expect(throws: RatingError.outOfRange(value)) { try store.setRating(value, for: "new") }
        }
        #expect(throws: RatingError.emptyID) { try store.setRating(5, for: "") }
        #expect(throws: RatingError.emptyID) { try store.recordSeen(["ok", ""]) }
        #expect(throws: RatingError.emptyID) { try store.forget("") }
        #expect(try store.rating(for: "tiger") == 6)
        #expect(try store.addedDates(for: ["new", "ok"]) == [:])
    }

    @Test(arguments: CatalogEngine.allCases)
    func theAddedDateIsTheFirstTimeAnIdWasSeenAndForgetClearsIt(engine: CatalogEngine) throws {
        let store = try engine.open().ratings
        let early = Date(timeIntervalSince1970: 1_700_000_000.123)
        let later = early.addingTimeInterval(3600)
        #expect(try store.recordSeen(["a", "b"], at: early) == ["a": early, "b": early])
        #expect(try store.recordSeen(["b", "c", "c"], at: later) == ["b": early, "c": later])
        #expect(try store.addedDates(for: ["a", "b", "c", "zzz"]) == ["a": early, "b": early, "c": later])
        let before = Date()
        try store.setRating(2, for: "d")
        try store.setRating(2, for: "a")
        let added = try store.addedDates(for: ["a", "d"])
        #expect(added["a"] == early)
        #expect(try #require(added["d"]) >= before.addingTimeInterval(-0.001))
        try store.forget("a")
        #expect(try store.rating(for: "a") == nil)
        #expect(try store.addedDates(for: ["a"]) == [:])
        try store.forget("a")
    }

    /// 200 threads through two connections (two replicas): 100 racing on ten shared ids, 100 on their own.
    @Test(arguments: CatalogEngine.allCases)
    func concurrentWritesFromTwoConnectionsAllLandAndAgree(engine: CatalogEngine) throws {
        let first = try engine.open()
        let second = try first.reopen()
        let errors = Locked<[String]>([])
        onManyThreads(200) { index in
            let store = index % 4 < 2 ? first.ratings : second.ratings
            do {
                let id = index.isMultiple(of: 2) ? "shared-\(index / 2 % 10)" : "own-\(index)"
                try store.setRating(index % 11, for: id)
                guard let read = try store.rating(for: id), Rating.range.contains(read) else { throw RatingError.outOfRange(-1) }
            } catch {
                errors.mutate { $0.append("\(error)") }
            }
        }
        #expect(errors.value == [])
        let ownIDs = (0..<200).filter { !$0.isMultiple(of: 2) }
        #expect(try first.ratings.ratings(for: ownIDs.map { "own-\($0)" })
                == Dictionary(uniqueKeysWithValues: ownIDs.map { ("own-\($0)", $0 % 11) }))
        let shared = try first.ratings.ratings(for: (0..<10).map { "shared-\($0)" })
        #expect(shared.count == 10)
        #expect(try second.ratings.ratings(for: shared.keys.sorted()) == shared)
    }

    @Test(arguments: CatalogEngine.allCases)
    func idsAreGivenOnceAndNeverMove(engine: CatalogEngine) throws {
        let catalog = try engine.open()
        let names = ["tiger.png", "Tiger.jpg", "tiger.jpg", "tiger-png.gif"]
        let ids = try catalog.identities.ids(for: names)
        #expect(ids == ["Tiger.jpg": "tiger", "tiger-png.gif": "tiger-png", "tiger.jpg": "tiger-jpg", "tiger.png": "tiger-png-2"])
        #expect(try engine.open().identities.ids(for: names.reversed()) == ids)  // another catalog, same answer
        // A file goes and comes back: same id; its slug is never handed on.
        #expect(try catalog.identities.ids(for: ["tiger.jpg"]) == ["tiger.jpg": "tiger-jpg"])
        #expect(try catalog.identities.ids(for: ["Tiger!.jpg"]) == ["Tiger!.jpg": "tiger-jpg-2"])
        let other = try catalog.reopen().identities
        #expect(try other.id(of: "Tiger.jpg") == "tiger")
        #expect(try other.id(of: "never.jpg") == nil)
    }

    /// Replicas scanning the same shared folder at the same moment bind every new name once, to
    /// the same id, whichever wins.
    @Test(arguments: CatalogEngine.allCases)
    func replicasBindingTheSameNewNamesAtOnceAgree(engine: CatalogEngine) throws {
        let first = try engine.open()
        let replicas = try [first] + (1..<4).map { _ in try first.reopen() }
        let names = (0..<200).map { "Photo \($0 % 50)" + [".jpg", ".png", ".JPG", ".tif"][$0 / 50] }
        let answers = Locked<[[String: String]]>([])
        let errors = Locked<[String]>([])
        onManyThreads(8) { index in
            do {
                let ids = try replicas[index % 4].identities.ids(for: index < 4 ? names : names.reversed())
                answers.mutate { $0.append(ids) }
            } catch {
                errors.mutate { $0.append("\(error)") }
            }
        }
        #expect(errors.value == [])
        let all = answers.value
        #expect(all.count == 8)
        #expect(Set(all[0].values).count == names.count)
        for answer in all { #expect(answer == all[0]) }
    }

    @Test(arguments: CatalogEngine.allCases)
    func buildFailuresAreKnownForTheirOwnVersionOnly(engine: CatalogEngine) throws {
        let catalog = try engine.open()
        let failures = catalog.failures
        let failure = BuildFailure(fileName: "bad ü.tif", version: "v1", reason: "libvips: \"truncated\" ?")
        try failures.record(failure)
        #expect(try failures.failure(fileName: "bad ü.tif", version: "v1") == failure)
        #expect(try failures.failure(fileName: "bad ü.tif", version: "v2") == nil)
        try failures.record(BuildFailure(fileName: "bad ü.tif", version: "v2", reason: "again"))
        #expect(try catalog.reopen().failures.failure(fileName: "bad ü.tif", version: "v1") == nil)
        #expect(try failures.failure(fileName: "bad ü.tif", version: "v2")?.reason == "again")
        try failures.forget(fileName: "bad ü.tif")
        #expect(try failures.failure(fileName: "bad ü.tif", version: "v2") == nil)
    }
}
