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
        let deadline = Date().addingTimeInterval(30)
        var after = before
        while after == before && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            after = (try? version(server)) ?? before
        }
        #expect(after != before)
        try server.waitUntilBuilt()
        let new = try storedFile(server, version: after)
        #expect(new != old)
        try expectServedFromMemory(server, file: new)
    }
}
