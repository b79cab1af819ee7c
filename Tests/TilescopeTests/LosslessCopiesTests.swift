import Catalog
import Foundation
import Imaging
import Synchronization
import TestSupport
import Testing
@testable import Tilescope

/// Which source versions get a lossless copy is found once per version: a lossy source is never
/// probed twice, a lossless one still gets its copy, a new version is looked at anew, and the
/// memory of lossy versions stays bounded.
@Suite struct LosslessCopiesTests {
    /// Counts the calls of the loader lookup it stands in front of (the real one).
    final class CountingLoader: Sendable {
        private let calls = Mutex([String: Int]())
        func find(_ path: String) -> String? {
            calls.withLock { $0[path, default: 0] += 1 }
            return ImageHeader.loader(of: path)
        }
        func count(_ path: String) -> Int { calls.withLock { $0[path, default: 0] } }
    }

    static func folder() throws -> String {
        try TestScratch.folder("lossless-copies")
    }

    static func record(_ path: String, id: String, version: String = "00000000000000a1") throws -> ImageRecord {
        let stamp = try #require(SourceFingerprint.Stamp.read(path))
        return ImageRecord(id: id, fileName: (path as NSString).lastPathComponent, sourcePath: path, version: version,
                           stamp: stamp, header: try ImageHeader.read(path), status: .queued)
    }

    @Test func aLossySourceIsProbedOncePerVersion() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/photo.jpg"
        try TestImages.writeJPEG(width: 300, height: 200, to: source, seed: 1)
        let loader = CountingLoader()
        let copies = LosslessCopies(findLoader: { loader.find($0) })
        let first = try Self.record(source, id: "photo")
        for _ in 0..<5 { #expect(try copies.copy(of: first, in: folder) == nil) }
        #expect(loader.count(source) == 1)
        // A new version of the same id is another source: looked at again, once.
        let second = try Self.record(source, id: "photo", version: "00000000000000b2")
        for _ in 0..<3 { #expect(try copies.copy(of: second, in: folder) == nil) }
        #expect(loader.count(source) == 2)
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + LosslessCopies.fileName))
    }

    @Test func aLosslessSourceStillGetsItsCopyAndIsProbedOnce() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/scene.png"
        try TestImages.writePNG(width: 300, height: 200, to: source, seed: 2)
        let loader = CountingLoader()
        let copies = LosslessCopies(findLoader: { loader.find($0) })
        let record = try Self.record(source, id: "scene")
        let copy = try #require(try copies.copy(of: record, in: folder))
        #expect(FileManager.default.fileExists(atPath: folder + "/" + LosslessCopies.fileName))
        for _ in 0..<4 { #expect(try copies.copy(of: record, in: folder) === copy) }
        #expect(loader.count(source) == 1)
    }

    /// A source libvips cannot read now (being replaced, say) is not taken for a lossy one.
    @Test func anUnreadableSourceIsNotRemembered() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/scene.png"
        try TestImages.writePNG(width: 300, height: 200, to: source, seed: 2)
        let record = try Self.record(source, id: "scene")
        let readable = Mutex(false)
        let copies = LosslessCopies(findLoader: { path in readable.withLock { $0 } ? ImageHeader.loader(of: path) : nil })
        #expect(try copies.copy(of: record, in: folder) == nil)
        readable.withLock { $0 = true }
        #expect(try copies.copy(of: record, in: folder) != nil)
    }

    @Test func theLossyVersionsRememberedAreBounded() {
        let known = KnownLossySources(capacity: 3)
        for index in 0..<10 { known.insert("a/\(index)") }
        #expect(known.count <= 3)
        #expect(known.contains("a/9"))
        #expect(!known.contains("a/0"))
    }
}
