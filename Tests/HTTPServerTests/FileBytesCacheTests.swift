import Foundation
import Synchronization
import Testing
import TestSupport
@testable import HTTPServer

/// The in-memory file cache: right bytes, bounded by bytes, files too large left out, and shared
/// bodies that stay valid while responses still send them.
@Suite struct FileBytesCacheTests {
    /// Writes `count` files of `size` bytes each, file i filled with byte i (mod 251), into a new folder.
    static func files(_ count: Int, size: Int, label: String = #function) throws -> [String] {
        let folder = try TestImages.folder("filebytes-\(label)")
        return try (0..<count).map { index in
            let path = "\(folder)/f\(index).bin"
            try Data(repeating: UInt8(index % 251), count: size).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test func answersTheFileBytesFromDiskThenFromMemory() throws {
        let paths = try Self.files(3, size: 1000)
        let cache = FileBytesCache(capacity: 1 << 20)
        for (index, path) in paths.enumerated() {
            #expect(cache.bytes(at: path)?.bytes == [UInt8](repeating: UInt8(index), count: 1000))
        }
        #expect(cache.counts.misses == 3 && cache.counts.hits == 0)
        for (index, path) in paths.enumerated() {
            #expect(cache.bytes(at: path)?.bytes == [UInt8](repeating: UInt8(index), count: 1000))
        }
        #expect(cache.counts.hits == 3)
        #expect(cache.counts.entries == 3 && cache.counts.bytes == 3000)
    }

    /// A file replaced under the same path (a damaged IIIF tile made again) is read anew once removed,
    /// and the other entries, moved to fill the hole, keep answering their own bytes.
    @Test func aRemovedEntryIsReadAgainFromItsFile() throws {
        let paths = try Self.files(4, size: 100)
        let cache = FileBytesCache(capacity: 1 << 20)
        for path in paths { _ = cache.bytes(at: path) }
        try Data(repeating: 200, count: 50).write(to: URL(fileURLWithPath: paths[1]))
        #expect(cache.bytes(at: paths[1])?.bytes == [UInt8](repeating: 1, count: 100))  // still the old bytes
        cache.remove(paths[1])
        cache.remove(paths[1])  // twice: nothing more to do
        #expect(cache.counts.entries == 3 && cache.counts.bytes == 300)
        #expect(cache.bytes(at: paths[1])?.bytes == [UInt8](repeating: 200, count: 50))
        for index in [0, 2, 3] {
            #expect(cache.bytes(at: paths[index])?.bytes == [UInt8](repeating: UInt8(index), count: 100))
        }
        #expect(cache.counts.entries == 4 && cache.counts.bytes == 350)
    }

    @Test func neverHoldsMoreBytesThanItsCapacity() throws {
        let paths = try Self.files(40, size: 1000)
        let cache = FileBytesCache(capacity: 10_500)
        for round in 0..<3 {
            for (index, path) in paths.enumerated() {
                // Every answer is still the right file's bytes, whatever was evicted to make room.
                #expect(cache.bytes(at: path)?.bytes.first == UInt8(index), "round \(round)")
                #expect(cache.counts.bytes <= 10_500)
            }
        }
        #expect(cache.counts.entries == 10)
    }

    @Test func spareFilesUsedSinceTheLastSweep() throws {
        let paths = try Self.files(12, size: 1000)
        let cache = FileBytesCache(capacity: 4000)
        for path in paths[0..<4] { _ = cache.bytes(at: path) }
        _ = cache.bytes(at: paths[0])  // used again: the sweep passes over it once
        for path in paths[4..<7] { _ = cache.bytes(at: path) }
        let hits = cache.counts.hits
        _ = cache.bytes(at: paths[0])
        #expect(cache.counts.hits == hits + 1, "the hot file was evicted before the cold ones")
    }

    @Test func filesOverTheLimitAreNotHeld() throws {
        let small = try Self.files(1, size: 100, label: "small")[0]
        let large = try Self.files(1, size: 5000, label: "large")[0]
        let cache = FileBytesCache(capacity: 100_000, maxFileBytes: 4096)
        #expect(cache.bytes(at: large) == nil)
        #expect(cache.bytes(at: small)?.count == 100)
        #expect(cache.counts.entries == 1)
        #expect(cache.bytes(at: "/nonexistent/file") == nil)
        #expect(cache.bytes(at: NSTemporaryDirectory()) == nil)  // a folder is not a file
        #expect(FileBytesCache(capacity: 0).bytes(at: small) == nil)  // capacity 0: nothing is held
    }

    @Test func anEvictedEntryStaysValidForWhoeverStillHoldsIt() throws {
        let paths = try Self.files(3, size: 1000)
        let cache = FileBytesCache(capacity: 1000)
        let first = try #require(cache.bytes(at: paths[0]))
        _ = cache.bytes(at: paths[1])
        _ = cache.bytes(at: paths[2])
        #expect(cache.counts.entries == 1)
        #expect(first.bytes == [UInt8](repeating: 0, count: 1000))
    }

    @Test func manyThreadsReadTheRightBytes() throws {
        let paths = try Self.files(64, size: 777)
        let cache = FileBytesCache(capacity: 20 * 777)
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for step in 0..<2000 {
                let index = (step * 7 + thread * 13) % paths.count
                if cache.bytes(at: paths[index])?.bytes.first != UInt8(index) { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(cache.counts.bytes <= 20 * 777)
    }
}
