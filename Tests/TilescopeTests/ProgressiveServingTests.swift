import Foundation
import TestSupport
import Imaging
import ScrollGeometry
import Testing
@testable import Tilescope

/// A progressive build over real HTTP: the descriptor, the preview and each finished level are served
/// while finer levels build, an unfinished level answers 503 with Retry-After, and nothing partial is
/// ever served.
@Suite(.serialized) struct ProgressiveServingTests {
    @Test func aBuildingImageServesWholeLevelsOnlyAndTheirFinalBytes() throws {
        let (width, height) = (8192, 6144)
        let server = try TestServer(label: "progressive") { folder in
            try TestImages.writeJPEG(width: width, height: height, to: folder + "/big.jpg")
        }
        let pyramid = Pyramid(width: width, height: height)
        let previewLevel = pyramid.previewLevel()
        var tiles: [(level: Int, column: Int, row: Int)] = []
        for level in [0, previewLevel, previewLevel + 1, pyramid.maxLevel - 1, pyramid.maxLevel] {
            let grid = pyramid.tileGrid(ofLevel: level)
            tiles += [(level, 0, 0), (level, grid.columns - 1, grid.rows - 1), (level, grid.columns / 2, grid.rows / 2)]
        }
        func tilePath(_ tile: (level: Int, column: Int, row: Int)) -> String {
            "/dzi/big_files/\(tile.level)/\(tile.column)_\(tile.row).jpeg"
        }
        let others = ["/dzi/big.dzi", "/images/big/preview.jpeg"]
        let connection = try RawHTTP(port: server.port)
        var served: [String: Set<[UInt8]>] = [:]
        var previewWhileBuilding = false, unfinishedLevelRefused = false
        var lastReady = 0
        let deadline = Date().addingTimeInterval(180)
        while Date() < deadline {
            let json = try #require(try connection.send("GET", "/api/images/big").json)
            let status = try #require(json["status"] as? String)
            let ready = try #require(json["readyLevels"] as? Int)
            #expect(ready >= lastReady, "readyLevels never goes back")
            #expect(ready == 0 || ready > previewLevel, "the base comes whole: the descriptor, the preview and levels 0-\(previewLevel)")
            lastReady = ready
            if status == "ready" { break }
            for tile in tiles {
                let reply = try connection.send("GET", tilePath(tile))
                if reply.status == 200 {
                    served[tilePath(tile), default: []].insert(reply.body)
                    let rect = pyramid.tileRect(level: tile.level, column: tile.column, row: tile.row)
                    #expect(JPEGSize.of(reply.body) == PixelSize(width: rect.width, height: rect.height), "\(tilePath(tile))")
                } else {
                    #expect(reply.status == 503, "\(tilePath(tile)): \(reply.status)")
                    #expect(tile.level >= ready, "level \(tile.level) was announced ready, yet \(tilePath(tile)) answered \(reply.status)")
                    #expect(reply.json?["error"] as? String == "building")
                    let retry = reply.header("retry-after").flatMap(Int.init) ?? 0
                    #expect(retry >= 1 && retry <= 60)
                    #expect(reply.header("access-control-allow-origin") == "*")
                    if ready > 0 { unfinishedLevelRefused = true }
                }
            }
            for path in others {
                let reply = try connection.send("GET", path)
                #expect(reply.status == 200 || reply.status == 503, "\(path): \(reply.status)")
                #expect(reply.status == 200 || ready == 0, "\(path) is served once the base is out")
                if reply.status == 200 {
                    served[path, default: []].insert(reply.body)
                    if path.hasSuffix("preview.jpeg") && status == "building" { previewWhileBuilding = true }
                }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try server.get("/api/images/big").json?["status"] as? String == "ready")
        #expect(lastReady == pyramid.maxLevel + 1)
        #expect(previewWhileBuilding, "the preview was served before the build ended")
        #expect(unfinishedLevelRefused, "a level still building answered 503 while coarser ones were served")
        // Every answer given while building was the final file, byte for byte.
        for (path, bodies) in served {
            let final = try connection.send("GET", path)
            #expect(final.status == 200)
            #expect(bodies == [final.body], "\(path) served \(bodies.count) different bodies")
        }
    }

    @Test func theStorePublishesLevelByLevelAndReplacesAnInterruptedVersion() throws {
        let data = try TestImages.folder("store") + "/data"
        let store = try FilePyramidStore(dataFolder: data)
        let pyramid = Pyramid(width: 600, height: 300)  // levels 0-10, preview level 10
        let partial = PyramidManifest(pyramid: pyramid, source: "a.jpg", version: "v1", readyLevels: 9)
        func stagedBase(levels: Int) throws -> String {
            let folder = try store.makeStagingFolder(id: "a", version: "v1")
            for level in 0..<levels {
                try FileManager.default.createDirectory(atPath: "\(folder)/image_files/\(level)", withIntermediateDirectories: true)
            }
            return folder
        }
        #expect(try store.publish(stagingFolder: try stagedBase(levels: 9), manifest: partial, id: "a", version: "v1"))
        #expect(store.manifest(id: "a", version: "v1") == nil, "a partial version is not a built one")
        #expect(store.publishedManifest(id: "a", version: "v1")?.levelsReady == 9)

        // Another build of the same version (after a crash, say) replaces the partial one.
        #expect(try store.publish(stagingFolder: try stagedBase(levels: 9), manifest: partial, id: "a", version: "v1"))
        for level in 9...10 {
            let staged = try store.makeStagingFolder(id: "a", version: "v1")
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: staged + "/0_0.jpeg"))
            try store.publishLevel(level, from: staged, manifest: partial.with(readyLevels: level + 1), id: "a", version: "v1")
            #expect(FileManager.default.fileExists(atPath: store.tilePath(id: "a", version: "v1", level: level, column: 0, row: 0)))
        }
        let complete = try #require(store.manifest(id: "a", version: "v1"))
        #expect(complete.isComplete && complete.readyLevels == nil)
        // A complete version is kept: a second publish is refused, as another replica's would be.
        #expect(try store.publish(stagingFolder: try stagedBase(levels: 9), manifest: partial, id: "a", version: "v1") == false)
        #expect(store.manifest(id: "a", version: "v1") == complete)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: "\(data)/pyramids/a/v1")
        #expect(!leftovers.contains { $0.hasPrefix(".") }, "no temporary manifest left: \(leftovers)")
    }
}
