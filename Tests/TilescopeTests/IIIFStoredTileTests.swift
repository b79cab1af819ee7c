import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// Stored IIIF tiles (coinciding tiles, written once as files) are answered from the hot-file memory
/// the Deep Zoom tiles use, byte for byte their file, and a changed source never gets its old
/// version's tile from memory.
@Suite(.serialized) struct IIIFStoredTileTests {
    static let width = 600, height = 400
    /// Level 10's (full resolution) second column, first row: 254 px of a 600 px wide image.
    static let tile = "/iiif/3/photo/254,0,254,254/254,/0/default.jpg"

    func lookups(_ server: TestServer, _ result: String) throws -> Int {
        let text = try server.get("/metrics").text
        let prefix = "tilescope_pyramid_memory_lookups{result=\"\(result)\"} "
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(prefix) })
        return try #require(Double(line.dropFirst(prefix.count)).map { Int($0) })
    }

    func version(_ server: TestServer) throws -> String {
        try #require(server.get("/api/images/photo").json?["version"] as? String)
    }

    /// Asks for the tile until its file is in place (it is written behind the first reply); returns the file's bytes.
    func storedFile(_ server: TestServer, version: String) throws -> [UInt8] {
        let path = "\(server.data)/pyramids/photo/\(version)/iiif/10/1_0.jpg"
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline {
            _ = try server.get(Self.tile)
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Two requests of the stored tile: both are its file's bytes, and at least the second comes from memory.
    func expectServedFromMemory(_ server: TestServer, file: [UInt8]) throws {
        let hits = try lookups(server, "hit")
        for _ in 0..<2 {
            let reply = try server.get(Self.tile)
            #expect(reply.status == 200)
            #expect(reply.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            #expect(reply.header("link")?.contains("rel=\"canonical\"") == true)
            #expect(reply.body == file)
        }
        #expect(try lookups(server, "hit") - hits >= 1)
    }

    /// Tile files are written without fsync, so after a power cut one can be empty or zero-filled: such a
    /// file is never served, but rendered again and replaced by a whole one.
    @Test func aDamagedTileFileIsNeverServedAndIsMadeAgain() throws {
        let server = try TestServer(label: "iiif-torn") { folder in
            try TestImages.writeJPEG(width: Self.width, height: Self.height, to: folder + "/photo.jpg", seed: 5)
        }
        try server.waitUntilBuilt()
        let version = try version(server)
        let whole = try storedFile(server, version: version)
        let folder = "\(server.data)/pyramids/photo/\(version)/iiif/10"
        // Tiles of level 10 not asked for yet (so not in memory), each with a damaged file in its place.
        let damaged: [(tile: String, file: String, bytes: [UInt8])] = [
            ("0,0,254,254/254,", "0_0.jpg", []),
            ("0,254,254,146/254,", "0_1.jpg", Array(whole.prefix(whole.count / 2))),
            ("254,254,254,146/254,", "1_1.jpg", [UInt8](repeating: 0, count: whole.count)),
            ("508,0,92,254/92,", "2_0.jpg", Array(whole.prefix(2)) + [UInt8](repeating: 0, count: 3000)),
        ]
        for item in damaged {
            FileManager.default.createFile(atPath: "\(folder)/\(item.file)", contents: Data(item.bytes))
        }
        for item in damaged {
            let reply = try server.get("/iiif/3/photo/\(item.tile)/0/default.jpg")
            #expect(reply.status == 200)
            #expect(reply.header("server-timing")?.hasPrefix("tile;desc=written") == true, "\(item.file)")
            #expect(reply.body != item.bytes)
            #expect(reply.body.starts(with: [0xFF, 0xD8]) && reply.body.suffix(2) == [0xFF, 0xD9])
            // The file is made again from the render (behind the reply), then served as stored.
            let path = "\(folder)/\(item.file)"
            let deadline = Date().addingTimeInterval(30)
            while (FileManager.default.contents(atPath: path).map { [UInt8]($0) }) != reply.body && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == reply.body, "\(item.file)")
            let again = try server.get("/iiif/3/photo/\(item.tile)/0/default.jpg")
            #expect(again.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
            #expect(again.body == reply.body)
        }
    }

    @Test func onlyAJPEGWithBothMarkersIsWhole() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]
        #expect(jpeg.withUnsafeBytes(StoredTileCheck.isWholeJPEG))
        let damages: [[UInt8]] = [[], [0xFF, 0xD8], [UInt8](repeating: 0, count: 9), Array(jpeg.dropLast()), [0, 0] + jpeg.dropFirst(2),
                                  Array(jpeg.dropLast(2)) + [0, 0]]
        for damaged in damages {
            #expect(!damaged.withUnsafeBytes(StoredTileCheck.isWholeJPEG), "\(damaged)")
        }
        #expect(StoredTileCheck.isChecked(.jpg) && !StoredTileCheck.isChecked(.webp) && !StoredTileCheck.isChecked(.avif))
    }

    @Test func storedTilesComeFromMemoryAndNeverFromAnOldVersion() throws {
        let server = try TestServer(label: "iiif-stored") { folder in
            try TestImages.writeJPEG(width: Self.width, height: Self.height, to: folder + "/photo.jpg", seed: 4)
        }
        try server.waitUntilBuilt()
        let before = try version(server)
        let old = try storedFile(server, version: before)
        try expectServedFromMemory(server, file: old)

        // Same size, other pixels: the tile's path differs only by the version.
        try TestImages.writeJPEG(width: Self.width, height: Self.height, to: server.images + "/photo.tmp.jpg", seed: 9)
        _ = rename(server.images + "/photo.tmp.jpg", server.images + "/photo.jpg")
        let after = server.waitForVersion(of: "photo", otherThan: before)
        #expect(after != before)
        try server.waitUntilBuilt()
        let new = try storedFile(server, version: after)
        #expect(new != old)
        try expectServedFromMemory(server, file: new)
    }
}
