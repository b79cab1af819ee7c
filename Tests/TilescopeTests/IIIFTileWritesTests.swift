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
        #expect(writes.drain())
        for (path, bytes) in paths {
            #expect(writes.bytes(at: path) == nil)
            #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == bytes, "\(path)")
        }
        // The tile files and nothing else: no temporary file left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: version + "/iiif/3")
        #expect(Set(names) == Set(paths.keys.map { ($0 as NSString).lastPathComponent }))
    }

    @Test func nothingIsWrittenIntoAVersionFolderThatIsGone() throws {
        let version = try folder()
        try FileManager.default.removeItem(atPath: version)
        let writes = IIIFTileWrites(writers: 1, limit: 8)
        writes.publish([1, 2, 3], at: version + "/iiif/0/0_0.jpg", versionFolder: version)
        #expect(writes.drain())
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

    @Test func hasRoomUntilTheLimitIsWaiting() throws {
        #expect(IIIFTileWrites(writers: 1, limit: 0).hasRoom == false)
        let writes = IIIFTileWrites(writers: 1, limit: 4)
        #expect(writes.hasRoom)
    }

    @Test func derivedFilesMakeTheirFoldersInsideTheVersionOnly() throws {
        let version = try folder()
        defer { try? FileManager.default.removeItem(atPath: version) }
        let deep = version + "/formats/webp/12/3_4.webp"
        DerivedFile.publish([1, 2], at: deep, versionFolder: version)
        #expect(FileManager.default.contents(atPath: deep).map { [UInt8]($0) } == [1, 2])
        // Written again (a second render): replaced whole, no temporary left.
        DerivedFile.publish([3], at: deep, versionFolder: version)
        #expect(FileManager.default.contents(atPath: deep).map { [UInt8]($0) } == [3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: version + "/formats/webp/12") == ["3_4.webp"])
        // Paths that are not inside the version folder are never written.
        let sibling = version + "-other/iiif/0/0_0.jpg"
        for path in [sibling, version + "/../escape.jpg", version + "/iiif//0_0.jpg", version, version + "/"] {
            DerivedFile.publish([5], at: path, versionFolder: version)
            #expect(!FileManager.default.fileExists(atPath: path) || path.hasSuffix("/") || path == version, "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: version + "-other"))
        #expect(!FileManager.default.fileExists(atPath: (version as NSString).deletingLastPathComponent + "/escape.jpg"))
        #expect(DerivedFile.relativePath(of: version + "/iiif/3/1_2.jpg", in: version) == "iiif/3/1_2.jpg")
        #expect(DerivedFile.relativePath(of: version + "x/iiif/3/1_2.jpg", in: version) == nil)
    }
}
