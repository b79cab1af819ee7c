import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// Tile files written behind the reply: readable from memory until written, then a whole file,
/// never written outside an existing version folder, and bounded.
@Suite struct IIIFTileWritesTests {
    private func folder() throws -> String {
        try TestScratch.folder("tile-writes")
    }

    @Test func queuedTilesAreServedFromMemoryThenFromTheirFile() throws {
        let version = try folder()
        defer { try? FileManager.default.removeItem(atPath: version) }
        let writes = IIIFTileWrites(writers: 2, limit: 64)
        var paths: [String: [UInt8]] = [:]
        for index in 0..<40 {
            let path = "\(version)/iiif/3/\(index)_0.jpg"
            let bytes = (0..<(100 + index)).map { UInt8(($0 * 7 + index) & 0xFF) }
            writes.publish(bytes, at: path, versionFolder: version)
            paths[path] = bytes
            // Until it is a file, it is in memory; never neither.
            let inMemory = writes.bytes(at: path)
            let onDisk = FileManager.default.contents(atPath: path).map { [UInt8]($0) }
            #expect(inMemory == bytes || onDisk == bytes, "\(path)")
        }
        writes.drain()
        for (path, bytes) in paths {
            #expect(writes.bytes(at: path) == nil)
            #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == bytes, "\(path)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: version + "/iiif/3").filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func nothingIsWrittenIntoAVersionFolderThatIsGone() throws {
        let version = try folder()
        try FileManager.default.removeItem(atPath: version)
        let writes = IIIFTileWrites(writers: 1, limit: 8)
        writes.publish([1, 2, 3], at: version + "/iiif/0/0_0.jpg", versionFolder: version)
        writes.drain()
        #expect(!FileManager.default.fileExists(atPath: version))
    }

    @Test func beyondTheLimitTilesAreWrittenBeforeTheReply() throws {
        let version = try folder()
        defer { try? FileManager.default.removeItem(atPath: version) }
        let writes = IIIFTileWrites(writers: 1, limit: 0)
        let path = version + "/iiif/0/0_0.jpg"
        writes.publish([9, 8, 7], at: path, versionFolder: version)
        #expect(writes.bytes(at: path) == nil)
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == [9, 8, 7])
    }
}
