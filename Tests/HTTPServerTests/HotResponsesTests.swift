import Foundation
@testable import HTTPServer
import Synchronization
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

    /// A signed URL's answer is kept until its token expires: a lookup from then on misses (Swift refuses it),
    /// and dropping every expiring entry (a retired key) leaves the others.
    @Test func anEntryWithAnExpiryAnswersUntilThenAndGoesWithTheExpiringOnes() throws {
        let table = try #require(HotResponses(maxEntries: 16, maxBytes: 1 << 20))
        let now = Int(Date().timeIntervalSince1970)
        #expect(table.insert(ReuseKey(target: "/live", group: "a", generation: table.generation, expires: now + 3600),
                             headers: Self.headers, body: Self.bytes(10)))
        #expect(table.insert(ReuseKey(target: "/past", group: "a", generation: table.generation, expires: now - 1),
                             headers: Self.headers, body: Self.bytes(10)))
        #expect(table.insert(key("/plain", "a", table), headers: Self.headers, body: Self.bytes(10)))
        #expect(table.probe("/live") == 70 && table.probe("/past") == nil && table.probe("/plain") == 70)
        table.dropExpiring()
        #expect(table.probe("/live") == nil && table.probe("/plain") == 70 && table.counts.entries == 1)
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

    /// What the threads of `lookupsRaceInsertsEvictionsAndDrops` count.
    final class RaceCounts: Sendable {
        let writing = Atomic<Bool>(true)
        let found = Atomic<Int>(0)
        let wrong = Atomic<Int>(0)
        let stillThere = Atomic<Int>(0)
    }

    /// Lookups on two threads while a third inserts (evicting as it goes) and drops groups: every entry
    /// found has its own body whole (an entry freed under a lookup would show another's bytes or freed
    /// memory), and a dropped group's targets are gone the moment the drop returns.
    @Test func lookupsRaceInsertsEvictionsAndDrops() throws {
        let table = try #require(HotResponses(maxEntries: 16, maxBytes: 1 << 20))
        let counts = RaceCounts()
        let keys = 32
        @Sendable func target(_ index: Int) -> String { "/k/\(index)" }
        @Sendable func sum(_ index: Int) -> UInt64 { UInt64(index + 1) * UInt64(64 + index) }
        @Sendable func write() {
            for step in 0..<20_000 {
                let index = step * 7 % keys
                table.insert(ReuseKey(target: target(index), group: "g\(index % 4)", generation: table.generation),
                             headers: Self.headers, body: Self.bytes(64 + index, UInt8(index + 1)))
                if step % 50 == 49 {
                    let dropped = step / 50 % 4
                    table.drop(group: "g\(dropped)")
                    for other in stride(from: dropped, to: keys, by: 4) where table.probe(target(other)) != nil {
                        counts.stillThere.add(1, ordering: .relaxed)
                    }
                }
            }
            counts.writing.store(false, ordering: .releasing)
        }
        @Sendable func read(_ start: Int) {
            var index = start, probes = 0
            // At least 5,000 probes: the writer may be done before a reader starts.
            while counts.writing.load(ordering: .acquiring) || probes < 5_000 {
                index = (index + 5) % keys
                probes += 1
                if let got = table.probe(target(index)) {
                    counts.found.add(1, ordering: .relaxed)
                    if got != sum(index) { counts.wrong.add(1, ordering: .relaxed) }
                }
            }
        }
        // Threads of their own, not a pool's: readers spinning on a pool's threads could keep the writer waiting.
        let done = DispatchGroup()
        for worker in 0..<3 {
            done.enter()
            Thread.detachNewThread {
                if worker == 0 { write() } else { read(worker) }
                done.leave()
            }
        }
        done.wait()
        #expect(counts.wrong.load(ordering: .relaxed) == 0)
        #expect(counts.stillThere.load(ordering: .relaxed) == 0)
        #expect(counts.found.load(ordering: .relaxed) > 0)  // the readers did meet entries
        let totals = table.counts
        #expect(totals.entries <= 16 && totals.hits >= counts.found.load(ordering: .relaxed))
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
