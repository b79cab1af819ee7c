import Foundation
@testable import HTTPServer
import Testing

/// The hot table's own rules: an insert made with a generation read before a drop is refused, a
/// dropped group is gone, totals stay within their bounds, and an entry's bytes stay valid for whoever
/// still holds them. (End to end, over HTTP: `HotTileTests` and `PyramidMemoryCacheTests`.)
@Suite struct HotResponsesTests {
    static func bytes(_ count: Int, _ fill: UInt8 = 7) -> SharedBytes {
        let base = malloc(count)!
        memset(base, Int32(fill), count)
        return SharedBytes(taking: base, count: count)
    }

    static let headers: [(name: String, value: String)] = [("Content-Type", "image/jpeg"), ("ETag", "\"v1-0-0-0\"")]

    func key(_ target: String, _ group: String, _ table: HotResponses) -> ReuseKey {
        ReuseKey(target: target, group: group, generation: table.generation)
    }

    @Test func anInsertResolvedBeforeADropIsRefused() throws {
        let table = try #require(HotResponses(maxEntries: 16, maxBytes: 1 << 20))
        let stale = key("/a?v=1", "a", table)  // generation read, then the image changes
        table.drop(group: "a")
        #expect(!table.insert(stale, headers: Self.headers, body: Self.bytes(10)))
        #expect(table.counts.entries == 0)
        #expect(table.insert(key("/a?v=2", "a", table), headers: Self.headers, body: Self.bytes(10)))
        #expect(table.counts.entries == 1)
    }

    @Test func droppingAGroupRemovesItsEntriesOnly() throws {
        let table = try #require(HotResponses(maxEntries: 16, maxBytes: 1 << 20))
        for index in 0..<3 {
            #expect(table.insert(key("/a/\(index)", "a", table), headers: Self.headers, body: Self.bytes(10)))
            #expect(table.insert(key("/b/\(index)", "b", table), headers: Self.headers, body: Self.bytes(10)))
        }
        #expect(!table.insert(key("/a/0", "a", table), headers: Self.headers, body: Self.bytes(10)))  // already there
        #expect(table.counts.entries == 6 && table.counts.bytes == 60)
        table.drop(group: "a")
        #expect(table.counts.entries == 3 && table.counts.bytes == 30)
    }

    @Test func neverHoldsMoreThanItsBounds() throws {
        let table = try #require(HotResponses(maxEntries: 8, maxBytes: 1000))
        for index in 0..<50 {
            table.insert(key("/t/\(index)", "g", table), headers: Self.headers, body: Self.bytes(100 + index))
            let counts = table.counts
            #expect(counts.entries <= 8 && counts.bytes <= 1000)
        }
        #expect(!table.insert(key("/huge", "g", table), headers: Self.headers, body: Self.bytes(1001)))
        // Without an ETag there is nothing to answer a conditional request with: not kept.
        #expect(!table.insert(key("/no-etag", "g", table), headers: [("Content-Type", "image/jpeg")], body: Self.bytes(10)))
        // A target over the longest key is not kept either.
        #expect(!table.insert(key("/" + String(repeating: "x", count: 2000), "g", table), headers: Self.headers, body: Self.bytes(10)))
    }

    @Test func bytesOutliveTheirEntry() throws {
        let body = Self.bytes(64, 42)
        do {
            let table = try #require(HotResponses(maxEntries: 4, maxBytes: 1 << 20))
            #expect(table.insert(key("/x", "g", table), headers: Self.headers, body: body))
            table.drop(group: "g")
        }
        #expect(body.bytes == [UInt8](repeating: 42, count: 64))  // the table's reference went, ours stays
    }
}
