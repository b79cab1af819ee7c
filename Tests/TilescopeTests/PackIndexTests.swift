import Foundation
import Imaging
import SeededRandom
import Testing
@testable import Tilescope

/// A packed version's two halves apart from the store: `PackWriter` (tiles appended from several threads into packs
/// of the target size, a failed PUT sent again, the index) and `PackIndex` (what a reader trusts: every range
/// inside its pack, every path a tile's; a damaged or hostile index refused with its reason, never a trap). The
/// objects really go to a real store in `ObjectStoreServingTests`, `ObjectStoreKillPointTests` and the others.
@Suite struct PackIndexTests {
    /// Objects "put", by name.
    final class Sink: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var stored: [String: [UInt8]] = [:]
        private var order: [String] = []
        /// Names whose first PUT fails.
        var failOnce: Set<String> = []
        struct Refused: Error {}

        func put(_ name: String, _ bytes: [UInt8]) throws {
            try lock.withLock {
                if failOnce.remove(name) != nil { throw Refused() }
                stored[name] = bytes
                order.append(name)
            }
        }
        var objects: [String: [UInt8]] { lock.withLock { stored } }
        var names: [String] { lock.withLock { order } }
    }

    static func tiles(_ count: Int, seed: UInt64) -> [(String, [UInt8])] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { number in
            ("image_files/\(number % 15)/\(number)_\(number % 7).jpeg",
             (0..<Int.random(in: 1...3000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
    }

    @Test func tilesAppendedFromManyThreadsReadBackFromTheirPacksThroughTheIndex() throws {
        let sink = Sink()
        let writer = PackWriter(targetBytes: 20_000) { try sink.put($0, $1) }
        let tiles = Self.tiles(400, seed: 7)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in stride(from: thread, to: tiles.count, by: 4) { try? writer.append(tiles[index].0, tiles[index].1) }
        }
        // Rewritten after it was appended: indexed at its last place.
        try writer.append(tiles[3].0, Array("rewritten".utf8))
        let outcome = try writer.finish()
        let stored = sink.objects
        #expect(outcome.index == writer.indexName && stored[writer.indexName] == outcome.indexBytes)
        #expect(sink.names.last == writer.indexName, "the index went before a pack")
        #expect(outcome.objects == Set(stored.keys))
        let index = try PackIndex.parse(outcome.indexBytes)
        #expect(index.entries.count == tiles.count)
        for (path, bytes) in tiles.dropFirst(4) + [(tiles[3].0, Array("rewritten".utf8))] + tiles.prefix(3) {
            let entry = try #require(index.entries[path])
            let pack = try #require(stored[index.packs[entry.pack].name])
            #expect(Array(pack[entry.range]) == bytes, "\(path) reads other bytes from its pack")
        }
        // Every pack but the last reached the target; each is as large as the index says.
        for (number, pack) in index.packs.enumerated() {
            #expect(stored[pack.name]?.count == pack.size)
            #expect(number == index.packs.count - 1 || pack.size >= 20_000)
        }
        #expect(index.packs.count > 10 && index.packs.count < 40, "\(index.packs.count) packs")
        #expect(try PackIndex.parse(index.encoded()) == index)
    }

    @Test func aPackWhosePutFailedIsSentAgainAtTheEnd() throws {
        let sink = Sink()
        let writer = PackWriter(targetBytes: 1000) { try sink.put($0, $1) }
        sink.failOnce = [writer.packName(0)]
        #expect(throws: Sink.Refused.self) { try writer.append("image_files/0/0_0.jpeg", [UInt8](repeating: 1, count: 1200)) }
        try writer.append("image_files/0/1_0.jpeg", [UInt8](repeating: 2, count: 10))
        let outcome = try writer.finish()
        let index = try PackIndex.parse(outcome.indexBytes)
        #expect(Set(sink.objects.keys) == [writer.packName(0), writer.packName(1), writer.indexName])
        #expect(sink.objects[writer.packName(0)] == [UInt8](repeating: 1, count: 1200))
        #expect(index.entries["image_files/0/1_0.jpeg"] == PackIndex.Entry(pack: 1, offset: 0, length: 10))
    }

    @Test func anUploadWithNoTileWritesNoIndex() throws {
        let sink = Sink()
        let outcome = try PackWriter(targetBytes: 1000) { try sink.put($0, $1) }.finish()
        #expect(outcome.index == nil && outcome.objects.isEmpty && sink.objects.isEmpty)
    }

    /// An index of the given packs and entries, written field by field (not by `encoded`, so that it can lie).
    static func raw(packs: [(String, UInt64)], entries: [(String, UInt32, UInt64, UInt32)],
                    packCount: UInt32? = nil, entryCount: UInt32? = nil) -> [UInt8] {
        var out = Array("TSPACKS1".utf8)
        func add<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        add(packCount ?? UInt32(packs.count))
        for (name, size) in packs {
            add(UInt16(name.utf8.count))
            out += name.utf8
            add(size)
        }
        add(entryCount ?? UInt32(entries.count))
        for (path, pack, offset, length) in entries {
            add(UInt16(path.utf8.count))
            out += path.utf8
            add(pack)
            add(offset)
            add(length)
        }
        return out
    }

    @Test func aDamagedOrHostileIndexIsRefusedWithItsReason() throws {
        let pack = [("packs/ab-0.pack", UInt64(1000))]
        let good = Self.raw(packs: pack, entries: [("image_files/3/1_2.jpeg", 0, 10, 20), ("image_files/3/2_2.jpeg", 0, 30, 970)])
        let index = try PackIndex.parse(good)
        #expect(index.entries["image_files/3/2_2.jpeg"]?.range == 30...999)
        // Cut anywhere: refused.
        for length in 0..<good.count {
            #expect(throws: PackIndex.Malformed.self) { try PackIndex.parse(Array(good.prefix(length))) }
        }
        #expect(throws: PackIndex.Malformed.self) { try PackIndex.parse(good + [0]) }
        let hostile: [(String, [UInt8])] = [
            ("offset past the end", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, 1000, 1)])),
            ("offset near UInt64.max", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, UInt64.max - 5, 10)])),
            ("offset at Int.max", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, UInt64(Int.max), 1)])),
            ("length past the end", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, 990, 11)])),
            ("length UInt32.max", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, 0, UInt32.max)])),
            ("no bytes", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, 0, 0)])),
            ("a pack it has not", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 1, 0, 1)])),
            ("pack UInt32.max", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", UInt32.max, 0, 1)])),
            ("a path twice", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, 0, 1), ("image_files/0/0_0.jpeg", 0, 1, 1)])),
            ("a pack over 5 GiB", Self.raw(packs: [("packs/ab-0.pack", UInt64(6) << 30)], entries: [])),
            ("a pack of no bytes", Self.raw(packs: [("packs/ab-0.pack", 0)], entries: [])),
            ("4 billion packs", Self.raw(packs: pack, entries: [], packCount: UInt32.max)),
            ("4 billion entries", Self.raw(packs: pack, entries: [("image_files/0/0_0.jpeg", 0, 0, 1)], entryCount: UInt32.max)),
            ("no magic", Array("TSPACKS2".utf8) + good.dropFirst(8)),
        ]
        for path in ["image_files/../x.jpeg", "image_files/./x", "/image_files/0/0_0.jpeg", "image_files//0_0.jpeg", "image_files/",
                     "preview.jpeg", "other/0/0_0.jpeg", "image_files/0/0_0.jpeg/", "image_files/0/a\u{1}b", "image_files/0/a b",
                     "image_files/0/é.jpeg", "image_files/0\\..\\x", String(repeating: "image_files/", count: 100)] {
            #expect(throws: PackIndex.Malformed.self, "the path \(path)") {
                try PackIndex.parse(Self.raw(packs: pack, entries: [(path, 0, 0, 1)]))
            }
        }
        for name in ["packs/../x.pack", "packs/ab-0", "packs/AB-0.pack", "other/ab-0.pack", "packs/.pack", "packs/a/b.pack",
                     "packs/a..b.pack", "/packs/ab-0.pack", ""] {
            #expect(throws: PackIndex.Malformed.self, "the pack name \(name)") {
                try PackIndex.parse(Self.raw(packs: [(name, 10)], entries: []))
            }
        }
        for (why, bytes) in hostile {
            #expect(throws: PackIndex.Malformed.self, "\(why)") { try PackIndex.parse(bytes) }
        }
        // What is packed is exactly the pyramid's tiles folder.
        #expect(PackIndex.packedFolder == PyramidBuilder.tilesFolderName)
        #expect(PackIndex.isIndexName("packs/3fa9.index") && !PackIndex.isIndexName("packs/../x.index")
                && !PackIndex.isIndexName("pyramid.json") && !PackIndex.isIndexName("packs/x.pack"))
    }

    @Test func aSixteenThousandPixelPyramidsIndexReadsWhole() throws {
        // 5,733 entries, as a 16384² pyramid's: printed, not asserted (benchmarks time things, tests do not).
        var entries: [String: PackIndex.Entry] = [:]
        var offset = 0
        for number in 0..<5733 {
            entries["image_files/\(number / 400)/\(number % 65)_\(number / 65).jpeg"] = PackIndex.Entry(pack: offset >> 23, offset: offset & ((1 << 23) - 1), length: 8_000)
            offset += 1 << 13
        }
        let packs = (0...(offset >> 23)).map { PackIndex.Pack(name: "packs/f00d-\($0).pack", size: 1 << 23) }
        let index = PackIndex(packs: packs, entries: entries)
        let bytes = index.encoded()
        let start = Date()
        let parsed = try PackIndex.parse(bytes)
        print("pack index: \(entries.count) entries, \(bytes.count) bytes, parsed in \(String(format: "%.2f", Date().timeIntervalSince(start) * 1000)) ms")
        #expect(parsed == index)
    }
}
