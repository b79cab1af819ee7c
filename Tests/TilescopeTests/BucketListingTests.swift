import Testing
@testable import Tilescope

/// When an images bucket's pass is a whole listing and what a partial one adds (`BucketListing`): pure logic, the
/// listings themselves are `BucketSourcesTests`'.
@Suite struct BucketListingTests {
    static func object(_ name: String, size: Int = 1) -> BucketObject {
        BucketObject(name: name, key: "g/" + name, size: size, etag: "\"\(name)-\(size)\"")
    }

    @Test func theFirstListingAndOneOfASinglePageAreWhole() {
        let start = ContinuousClock.now
        var listing = BucketListing(wholeEvery: .seconds(60))
        #expect(listing.keyToListAfter(at: start) == nil, "nothing known yet")
        listing.tookWhole([Self.object("a.jpg")], lastKey: "g/a.jpg", pages: 1, at: start)
        #expect(listing.keyToListAfter(at: start + .seconds(1)) == nil, "one page: a whole listing costs the same")
        listing.tookWhole([Self.object("a.jpg"), Self.object("b.jpg")], lastKey: "g/b.jpg", pages: 2, at: start)
        #expect(listing.keyToListAfter(at: start + .seconds(1)) == "g/b.jpg")
        #expect(listing.keyToListAfter(at: start + .seconds(60)) == nil, "the interval past")
        listing.listWholeNext()
        #expect(listing.keyToListAfter(at: start + .seconds(1)) == nil, "asked for")
        var never = BucketListing(wholeEvery: .zero)
        never.tookWhole([Self.object("a.jpg")], lastKey: "g/z", pages: 5, at: start)
        #expect(never.keyToListAfter(at: start) == nil, "no interval: whole at every pass")
        var empty = BucketListing(wholeEvery: .seconds(60))
        empty.tookWhole([], lastKey: nil, pages: 2, at: start)
        #expect(empty.keyToListAfter(at: start) == nil)
    }

    @Test func whatAPartialListingFindsJoinsTheKnownInNameOrder() {
        let start = ContinuousClock.now
        var listing = BucketListing(wholeEvery: .seconds(60))
        listing.tookWhole([Self.object("b.jpg"), Self.object("d.jpg")], lastKey: "g/d.jpg", pages: 2, at: start)
        #expect(listing.took(added: [], lastKey: "g/d.jpg").map(\.name) == ["b.jpg", "d.jpg"])
        let joined = listing.took(added: [Self.object("e.jpg"), Self.object("d.jpg", size: 7)], lastKey: "g/x.txt")
        #expect(joined.map(\.name) == ["b.jpg", "d.jpg", "e.jpg"], "a name known is not taken twice")
        #expect(joined[1].size == 1)
        #expect(listing.keyToListAfter(at: start) == "g/x.txt", "the next starts after the greatest key, a source or not")
        _ = listing.took(added: [], lastKey: "g/c")  // a store that answered an earlier key: never back
        #expect(listing.lastKey == "g/x.txt")
    }

    @Test(arguments: [("g/b", "g/a", true), ("g/a", "g/b", false), ("g/a", "g/a", false), ("g/ab", "g/a", true),
                      ("g/é", "g/z", true), ("g/Z", "g/a", false), ("g/a", "g/Z", true)])
    func keysSortAsS3SortsThem(key: String, other: String, after: Bool) {
        // S3 compares keys' UTF-8 bytes: "é" (0xC3 0xA9) after "z" (0x7A), capitals before lower case.
        #expect(BucketListing.sortsAfter(key, other) == after)
    }
}
