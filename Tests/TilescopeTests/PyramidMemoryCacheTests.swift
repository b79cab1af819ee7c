import Foundation
import TestSupport
import ScrollGeometry
import Testing
@testable import Tilescope

/// Tiles answered from memory (`TilescopeApp.pyramidBytes`) are byte for byte the files of the
/// current source version: a changed source never gets a tile of its old version, even for tiles
/// that were hot in memory and sit at the same level, column and row.
@Suite(.serialized) struct PyramidMemoryCacheTests {
    static let width = 600, height = 400

    /// Every tile of the deepest three levels: (level, column, row).
    static var tiles: [(Int, Int, Int)] {
        let pyramid = Pyramid(width: width, height: height)
        return (pyramid.maxLevel - 2...pyramid.maxLevel).flatMap { level in
            let grid = pyramid.tileGrid(ofLevel: level)
            return (0..<grid.columns).flatMap { column in (0..<grid.rows).map { row in (level, column, row) } }
        }
    }

    /// `tilescope_pyramid_memory_lookups{result="hit"}` (or miss) from /metrics.
    func lookups(_ server: TestServer, _ result: String) throws -> Int {
        let text = try server.get("/metrics").text
        let prefix = "tilescope_pyramid_memory_lookups{result=\"\(result)\"} "
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(prefix) })
        return try #require(Double(line.dropFirst(prefix.count)).map { Int($0) })
    }

    /// `tilescope_hot_tiles_answered`: versioned tiles answered again without routing (`HotResponses`).
    func hotAnswers(_ server: TestServer) throws -> Int {
        let text = try server.get("/metrics").text
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("tilescope_hot_tiles_answered ") })
        return try #require(Double(line.split(separator: " ")[1]).map { Int($0) })
    }

    func version(_ server: TestServer) throws -> String {
        try #require(server.get("/api/images/photo").json?["version"] as? String)
    }

    /// Fetches every tile twice over one keep-alive connection (the second time from memory) and
    /// checks both answers against the file of `version` on disk. Returns the bodies.
    func fetchAll(_ server: TestServer, version: String, query: String = "") throws -> [[UInt8]] {
        let connection = try RawHTTP(port: server.port)
        var bodies: [[UInt8]] = []
        for (level, column, row) in Self.tiles {
            let file = "\(server.data)/pyramids/photo/\(version)/image_files/\(level)/\(column)_\(row).jpeg"
            let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            for _ in 0..<2 {
                let reply = try connection.send("GET", "/dzi/photo_files/\(level)/\(column)_\(row).jpeg\(query)")
                #expect(reply.status == 200)
                #expect(reply.header("etag") == "\"\(version)-\(level)-\(column)-\(row)\"")
                #expect(reply.header("content-length") == String(onDisk.count))
                #expect(reply.body == onDisk, "tile \(level)/\(column)_\(row) differs from the file of version \(version)")
            }
            bodies.append(onDisk)
        }
        #expect(!connection.isClosedByServer())
        return bodies
    }

    @Test func aChangedSourceNeverGetsTilesOfItsOldVersionFromMemory() throws {
        let server = try TestServer(label: "memcache") { folder in
            try TestImages.writePNG(width: Self.width, height: Self.height, to: folder + "/photo.png", seed: 0)
        }
        try server.waitUntilBuilt()
        let before = try version(server)
        let hitsBefore = try lookups(server, "hit")
        let hotBefore = try hotAnswers(server)
        let old = try fetchAll(server, version: before, query: "?v=\(before)")
        // Each versioned tile was asked for twice: the second answer came from the hot answers kept from the
        // first (the bytes of `pyramidBytes`), so every tile of the old version is held there now.
        #expect(try hotAnswers(server) - hotBefore == Self.tiles.count)
        #expect(try lookups(server, "hit") - hitsBefore >= 0)

        // The same size, other pixels: every tile path is the same but for the version.
        try TestImages.writePNG(width: Self.width, height: Self.height, to: server.images + "/photo.tmp.png", seed: 7)
        _ = rename(server.images + "/photo.tmp.png", server.images + "/photo.png")
        let after = server.waitForVersion(of: "photo", otherThan: before)
        #expect(after != before)
        try server.waitUntilBuilt()

        let hitsAfter = try lookups(server, "hit")
        let new = try fetchAll(server, version: after)
        #expect(try lookups(server, "hit") - hitsAfter >= Self.tiles.count)
        #expect(zip(old, new).filter { $0.0 != $0.1 }.count > Self.tiles.count / 2)
        // An old versioned URL gets the current tile, to be revalidated, never the old bytes.
        let stale = try server.get("/dzi/photo_files/\(Self.tiles[0].0)/0_0.jpeg?v=\(before)")
        #expect(stale.body == new[0])
        #expect(stale.header("cache-control") == HTTPCaching.revalidate)
        #expect(stale.header("etag") == "\"\(after)-\(Self.tiles[0].0)-0-0\"")
        // Every old versioned URL, each of which was hot: the current tile, to be revalidated.
        let hotAfterChange = try hotAnswers(server)
        let connection0 = try RawHTTP(port: server.port)
        for ((level, column, row), body) in zip(Self.tiles, new) {
            let reply = try connection0.send("GET", "/dzi/photo_files/\(level)/\(column)_\(row).jpeg?v=\(before)")
            #expect(reply.body == body && reply.header("cache-control") == HTTPCaching.revalidate)
        }
        #expect(try hotAnswers(server) == hotAfterChange, "an old version's URL was answered from a kept answer")
        // HEAD from memory: the length, no body.
        let connection = try RawHTTP(port: server.port)
        let head = try connection.send("HEAD", "/dzi/photo_files/\(Self.tiles[0].0)/0_0.jpeg?v=\(after)")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("content-length") == String(new[0].count))
        #expect(head.header("cache-control") == HTTPCaching.immutable)
    }
}
