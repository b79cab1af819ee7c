import SeededRandom
import Foundation
import Testing
@testable import Catalog

@Suite struct GallerySortTests {
    static func keys(_ id: String, _ name: String? = nil, rating: Int? = nil, added: Double? = nil) -> GallerySort.Keys {
        GallerySort.Keys(id: id, name: name ?? id, rating: rating, added: added.map { Date(timeIntervalSince1970: $0) })
    }

    func ids(_ sort: GallerySort, _ keys: [GallerySort.Keys]) -> [String] {
        sort.sorted(keys).map(\.id)
    }

    @Test func parsesTheQueryValue() {
        #expect(GallerySort(query: nil) == .name)
        #expect(GallerySort(query: "") == .name)
        #expect(GallerySort(query: "name") == .name)
        #expect(GallerySort(query: "rating") == .rating)
        #expect(GallerySort(query: "Added") == .added)
        #expect(GallerySort(query: "size") == nil)
        #expect(GallerySort.allCases.map(\.rawValue) == ["name", "rating", "added"])
    }

    @Test func nameOrderIgnoresCaseAndAccentsAndComparesNumbersAsNumbers() {
        let keys = ["tiger10", "Tiger2", "zebra", "Émeu", "apple", "tiger 1", "img007", "img7", "img0", "2 lions", "Tiger 10", "tiger 9"]
            .map { Self.keys($0) }
        #expect(ids(.name, keys) == [
            "2 lions", "apple", "Émeu", "img0", "img007", "img7", "tiger 1", "tiger 9", "Tiger 10", "Tiger2", "tiger10", "zebra",
        ])
    }

    @Test func numbersLongerThanAnIntegerStillCompare() {
        let keys = ["a99999999999999999999999", "a100000000000000000000000", "a2"].map { Self.keys($0) }
        #expect(ids(.name, keys) == ["a2", "a99999999999999999999999", "a100000000000000000000000"])
    }

    @Test func ratingOrderIsBestFirstUnratedLastTiesByName() {
        let keys = [
            Self.keys("u", "Unrated A"), Self.keys("c", "Cat", rating: 5), Self.keys("b", "Bear", rating: 5),
            Self.keys("z", "Zebra", rating: 10), Self.keys("o", "Owl", rating: 0), Self.keys("v", "Another unrated"),
        ]
        #expect(ids(.rating, keys) == ["z", "b", "c", "o", "v", "u"])
    }

    @Test func addedOrderIsNewestFirstUndatedLastTiesByName() {
        let keys = [
            Self.keys("old", added: 100), Self.keys("new", added: 300), Self.keys("b-mid", added: 200),
            Self.keys("a-mid", added: 200), Self.keys("undated"),
        ]
        #expect(ids(.added, keys) == ["new", "a-mid", "b-mid", "old", "undated"])
    }

    /// Equal names (and equal ratings) still have one order, by id, whatever the input order.
    @Test(arguments: GallerySort.allCases)
    func theOrderIsTotalSoPagingIsStable(sort: GallerySort) {
        let keys = (0..<40).map { Self.keys("id-\($0)", $0.isMultiple(of: 2) ? "Same" : "same", rating: 5, added: 1) }
        let expected = ids(sort, keys)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            #expect(ids(sort, keys.shuffled(using: &generator)) == expected)
        }
        #expect(expected.prefix(2) == ["id-0", "id-10"]) // "Same" before "same", then by id
    }

    @Test func sortsAnyRecordThroughItsKeys() {
        struct Image { let file: String; let stars: Int? }
        let images = [Image(file: "b.jpg", stars: 1), Image(file: "a.jpg", stars: nil), Image(file: "c.jpg", stars: 9)]
        let sorted = GallerySort.rating.sorted(images) { GallerySort.Keys(id: $0.file, name: $0.file, rating: $0.stars, added: nil) }
        #expect(sorted.map(\.file) == ["c.jpg", "b.jpg", "a.jpg"])
        #expect(GallerySort.name.sorted([Image]()) { _ in Self.keys("x") }.isEmpty)
    }

    @Test func ratingOrderIsTheAverageThenTheCountThenTheName() {
        func keys(_ id: String, _ average: Double?, _ count: Int) -> GallerySort.Keys {
            GallerySort.Keys(id: id, name: id, average: average, ratingCount: count, added: nil)
        }
        let all = [keys("a", 7, 1), keys("b", 7, 12), keys("c", 7.5, 2), keys("d", nil, 0), keys("e", 7, 12), keys("f", 6.99, 40)]
        #expect(GallerySort.rating.sorted(all).map(\.id) == ["c", "b", "e", "a", "f", "d"])
    }
}
