import Foundation
import ObjectStore
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// `--store s3://...` against a real SeaweedFS and real `tilescope serve` processes on loopback, no mocks:
/// what a server on the bucket answers is byte for byte what a server on a local folder answers; a second
/// server on the same bucket serves the published images without building them; objects of a version
/// without its `pyramid.json` (an upload that died) are never served, and are overwritten or deleted by the
/// build that publishes it; a cold tile asked for by many clients at once is fetched once; the store gone
/// gives 503 with `Retry-After` (never other bytes), and its return brings the tiles back without a restart.
@Suite(.serialized) struct ObjectStoreServingTests {
    /// A JPEG large enough to be built progressively (base first, finer levels after) and a PNG built whole.
    static let sources: [(name: String, width: Int, height: Int)] = [("wide.jpg", 2600, 1900), ("flat.png", 900, 700)]
    static var ids: [String] { sources.map { String($0.name.prefix { $0 != "." }) } }

    /// What one image answers, for comparing two servers.
    struct Answers: Equatable {
        var descriptor: [UInt8]
        var preview: [UInt8]
        /// Every tile of every level, by its path.
        var tiles: [String: [UInt8]]
        var etags: [String: String]
    }

    /// Polls `/api/images` until every source is ready (or fails the test), and returns their versions.
    static func waitUntilReady(_ server: ServerProcess, timeout: Double = 240,
                               meanwhile: () throws -> Void = {}) throws -> [String: String] {
        let end = Date().addingTimeInterval(timeout)
        var last: [String: String] = [:]
        while Date() < end {
            try meanwhile()
            let images = (try? RawHTTP.get(server.port, "/api/images").json?["images"] as? [[String: Any]]) ?? []
            var versions: [String: String] = [:]
            for image in images {
                guard let id = image["id"] as? String else { continue }
                last[id] = image["status"] as? String ?? "?"
                if last[id] == "failed" { throw TestFailure("\(id) failed: \(image["reason"] ?? "")\n\(server.log)") }
                if last[id] == "ready", let urls = image["urls"] as? [String: Any], let dzi = urls["dzi"] as? String,
                   let marker = dzi.range(of: "?v=") {
                    versions[id] = String(dzi[marker.upperBound...])
                }
            }
            if ids.allSatisfy({ versions[$0] != nil }) { return versions }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("not every image ready after \(timeout) s: \(last)\n\(server.log)")
    }

    /// The sources, written into `images`.
    static func writeSources(into images: String) throws {
        for (index, source) in sources.enumerated() {
            if source.name.hasSuffix(".png") {
                try TestImages.writePNG(width: source.width, height: source.height, to: images + "/" + source.name, seed: index)
            } else {
                try TestImages.writeJPEG(width: source.width, height: source.height, to: images + "/" + source.name, seed: index)
            }
        }
    }

    static func tilePaths(_ id: String) -> [String] {
        let source = sources[ids.firstIndex(of: id)!]
        let pyramid = Pyramid(width: source.width, height: source.height)
        var paths: [String] = []
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.tileGrid(ofLevel: level)
            for column in 0..<grid.columns { for row in 0..<grid.rows { paths.append("/dzi/\(id)_files/\(level)/\(column)_\(row).jpeg") } }
        }
        return paths
    }

    /// Every answer of one image, each required to be 200.
    static func answers(_ server: ServerProcess, _ id: String, version: String) throws -> Answers {
        func get(_ path: String) throws -> RawHTTP.Reply {
            let reply = try RawHTTP.get(server.port, path)
            guard reply.status == 200 else { throw TestFailure("\(path) answers \(reply.status): \(reply.text.prefix(300))\n\(server.log.suffix(3000))") }
            return reply
        }
        var answers = Answers(descriptor: try get("/dzi/\(id).dzi?v=\(version)").body,
                              preview: try get("/images/\(id)/preview.jpeg?v=\(version)").body, tiles: [:], etags: [:])
        for path in tilePaths(id) {
            let reply = try get(path + "?v=\(version)")
            answers.tiles[path] = reply.body
            answers.etags[path] = (reply.header("ETag") ?? "") + " " + (reply.header("Cache-Control") ?? "")
        }
        return answers
    }

    static func metric(_ server: ServerProcess, _ name: String) throws -> Double {
        let text = try RawHTTP.get(server.port, "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return Double(line.split(separator: " ").last ?? "") ?? -1
        }
        throw TestFailure("no metric \(name)")
    }

    static func builds(_ server: ServerProcess) throws -> Double {
        let text = try RawHTTP.get(server.port, "/metrics").text
        return text.split(separator: "\n").filter { $0.hasPrefix("tilescope_pyramid_builds_total") }
            .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test func aBucketServesWhatAFolderServesAndSurvivesTheStoreGoingAway() throws {
        let seaweed = try SeaweedServer.standalone()
        defer { seaweed.stop() }
        let bucket = try StoreBucket(seaweed, "pyramids")
        let (client, environment, store) = (bucket.client, bucket.environment, bucket.store("fleet/one"))
        let (root, images) = try StoreBucket.folders("object-store")
        try Self.writeSources(into: images)

        // The reference: the same sources built into a local folder.
        let reference = try ServerProcess(images: images, data: root + "/local")
        let versions = try Self.waitUntilReady(reference)
        var expected: [String: Answers] = [:]
        for id in Self.ids { expected[id] = try Self.answers(reference, id, version: versions[id]!) }

        // An upload that died: objects of the JPEG's version, wrong bytes, no pyramid.json; and a stray key.
        let wide = "fleet/one/pyramids/wide/\(versions["wide"]!)/"
        let garbage = Array("not a tile".utf8)
        let (deepest, stray) = ("image_files/12/0_0.jpeg", "image_files/0/9_9.jpeg")
        for key in [deepest, "image_files/0/0_0.jpeg", "preview.jpeg", "image.dzi", stray] {
            _ = try client.putObject(wide + key, body: garbage)
        }

        // A server on the bucket: never serves those objects, builds, publishes; then answers as the folder's did.
        let first = try ServerProcess(images: images, data: root + "/first", extra: store, environment: environment)
        let firstVersions = try Self.waitUntilReady(first) {
            for path in ["/dzi/wide_files/12/0_0.jpeg", "/images/wide/preview.jpeg", "/dzi/wide.dzi"] {
                let reply = try RawHTTP.get(first.port, path)
                #expect(reply.body != garbage, "\(path) answered the bytes of an unpublished upload")
            }
        }
        #expect(firstVersions == versions)
        #expect(try Self.builds(first) >= 2, "the first server did not build the images")
        for id in Self.ids {
            #expect(try Self.answers(first, id, version: versions[id]!) == expected[id], "\(id) on the bucket differs from the folder")
        }
        // The published version is packed: its tiles in a few packs read through its index, the dead upload's tile
        // objects deleted as strays, its other files replaced by the build's.
        let stored = try StoredVersion(client, prefix: wide)
        #expect(stored.manifest.packIndex != nil, "the published version is not packed")
        #expect(stored.files[deepest] == expected["wide"]!.tiles["/dzi/wide_files/12/0_0.jpeg"], "the published tile is not the build's")
        #expect(stored.files["preview.jpeg"] == expected["wide"]!.preview, "the dead upload's preview was not replaced")
        #expect(stored.files["image.dzi"] == expected["wide"]!.descriptor, "the dead upload's descriptor was not replaced")
        #expect(stored.keys == stored.objects, "left beside the version: \(stored.keys.subtracting(stored.objects).sorted())")
        #expect(Set(stored.files.keys.filter { S3PyramidStore.isPacked($0) }.map { "/dzi/wide_files/" + $0.dropFirst(12) })
                == Set(Self.tilePaths("wide")), "the index does not hold exactly the pyramid's tiles")
        #expect(stored.objects.count < 12, "\(stored.objects.count) objects for \(Self.tilePaths("wide").count) tiles")
        #expect(throws: S3Error.self, "the dead upload's stray object is still there") { try client.headObject(wide + stray) }
        #expect(throws: S3Error.self, "the dead upload's tile object is still there") { try client.headObject(wide + deepest) }

        // A second server on the same bucket, its own data folder and catalog: serves them without building.
        let second = try ServerProcess(images: images, data: root + "/second", extra: store, environment: environment)
        #expect(try Self.waitUntilReady(second) == versions)
        #expect(try Self.builds(second) == 0, "the second server built what was published:\n\(second.log)")
        for id in ["flat"] {
            #expect(try Self.answers(second, id, version: versions[id]!) == expected[id], "\(id) from the second server differs")
        }

        // Sixteen clients at once for one cold tile of a version not read here yet: one ranged GET of its pack and one
        // GET of its index.
        let cold = "/dzi/wide_files/11/1_1.jpeg?v=\(versions["wide"]!)"
        let fetchedBefore = try Self.metric(second, "tilescope_store_fetches_total")
        let indexesBefore = try Self.metric(second, "tilescope_store_index_fetches_total")
        let bodies = Bodies(), port = second.port
        AllAtOnce.run(16) {
            if let reply = try? RawHTTP.get(port, cold), reply.status == 200 { bodies.append(reply.body) }
        }
        #expect(try Self.metric(second, "tilescope_store_fetches_total") - fetchedBefore == 1)
        #expect(try Self.metric(second, "tilescope_store_index_fetches_total") - indexesBefore == 1)
        #expect(bodies.all.count == 16)
        #expect(bodies.all.allSatisfy { $0 == expected["wide"]!.tiles["/dzi/wide_files/11/1_1.jpeg"] })

        // The store gone: a tile already fetched is answered from the local cache, a cold one is 503 with
        // Retry-After (never other bytes), and /readyz says so; when it is back, so is the tile, without a restart.
        seaweed.interrupt()
        let warm = try RawHTTP.get(second.port, cold)
        #expect(warm.status == 200 && warm.body == expected["wide"]!.tiles["/dzi/wide_files/11/1_1.jpeg"])
        let coldWhileDown = "/dzi/wide_files/12/2_2.jpeg?v=\(versions["wide"]!)"
        let down = try RawHTTP.get(second.port, coldWhileDown)
        #expect(down.status == 503, "\(down.status): \(down.text)")
        #expect(down.header("Retry-After") != nil)
        #expect(down.json?["error"] as? String == "store_unavailable")
        var readiness = try RawHTTP.get(second.port, "/readyz")
        for _ in 0..<50 where readiness.status == 200 {
            Thread.sleep(forTimeInterval: 0.1)
            readiness = try RawHTTP.get(second.port, "/readyz")
        }
        #expect(readiness.status == 503 && readiness.text.contains("pyramid_store"), "\(readiness.text)")

        try seaweed.restart()
        var back = try RawHTTP.get(second.port, coldWhileDown)
        let end = Date().addingTimeInterval(30)
        while back.status != 200 && Date() < end {
            #expect(back.status == 503, "\(back.status) while the store comes back")
            Thread.sleep(forTimeInterval: 0.2)
            back = try RawHTTP.get(second.port, coldWhileDown)
        }
        #expect(back.status == 200 && back.body == expected["wide"]!.tiles["/dzi/wide_files/12/2_2.jpeg"])
        #expect(try Self.answers(second, "wide", version: versions["wide"]!) == expected["wide"], "wide from the second server differs")
        var ready = try RawHTTP.get(second.port, "/readyz")
        for _ in 0..<50 where ready.status != 200 {
            Thread.sleep(forTimeInterval: 0.1)
            ready = try RawHTTP.get(second.port, "/readyz")
        }
        #expect(ready.status == 200, "\(ready.text)")
        // Each version's index was read once on this replica, however many of its tiles were fetched.
        #expect(try Self.metric(second, "tilescope_store_index_fetches_total") == 2)
    }

    /// A version published before packs (one object per file, a `pyramid.json` naming no index) is read as it always
    /// was: a fresh replica serves it byte for byte, builds nothing and fetches one object per file, no index.
    @Test func aVersionPublishedBeforePacksIsStillReadOneObjectPerFile() throws {
        let seaweed = try SeaweedServer.shared()
        let bucket = try StoreBucket(seaweed, "legacy")
        let client = bucket.client
        let (root, images) = try StoreBucket.folders("object-store-legacy")
        try Self.writeSources(into: images)
        let reference = try ServerProcess(images: images, data: root + "/local")
        let versions = try Self.waitUntilReady(reference)
        var expected: [String: Answers] = [:]
        for id in Self.ids { expected[id] = try Self.answers(reference, id, version: versions[id]!) }
        // The old layout, as the builders before packs wrote it: every file of the version its own object (the local
        // folder's files under `pyramidEntries`), then its pyramid.json, which names no index.
        var files = 0
        for id in Self.ids {
            let folder = root + "/local/pyramids/\(id)/\(versions[id]!)"
            let prefix = "old/pyramids/\(id)/\(versions[id]!)/"
            let walker = try #require(FileManager.default.enumerator(atPath: folder))
            while let relative = walker.nextObject() as? String {
                guard S3PyramidStore.pyramidEntries.contains(String(relative.prefix { $0 != "/" })) else { continue }
                var info = stat()
                guard stat(folder + "/" + relative, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                _ = try client.putObject(prefix + relative, body: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative))))
                files += 1
            }
            let manifest = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/pyramid.json")))
            #expect(try JSONDecoder().decode(PyramidManifest.self, from: Data(manifest)).packIndex == nil)
            _ = try client.putObject(prefix + "pyramid.json", body: manifest)
        }
        let replica = try ServerProcess(images: images, data: root + "/replica",
                                        extra: bucket.store("old"), environment: bucket.environment)
        defer { replica.signal(SIGKILL); _ = try? replica.waitForExit() }
        #expect(try Self.waitUntilReady(replica) == versions)
        for id in Self.ids {
            #expect(try Self.answers(replica, id, version: versions[id]!) == expected[id], "\(id) of the old layout differs")
        }
        #expect(try Self.builds(replica) == 0, "the replica built what was published:\n\(replica.log)")
        // One GET for each file answered: the descriptor, the preview and every tile of each image.
        let answered = Self.ids.map { 2 + Self.tilePaths($0).count }.reduce(0, +)
        #expect(files >= answered)
        #expect(try Self.metric(replica, "tilescope_store_fetches_total") == Double(answered), "not one GET per file")
        #expect(try Self.metric(replica, "tilescope_store_index_fetches_total") == 0)
        #expect(try Self.metric(replica, "tilescope_store_puts_total") == 0)
    }
}

/// Answers collected from many threads.
private final class Bodies: @unchecked Sendable {  // `list` is guarded by `lock`
    private let lock = NSLock()
    private var list: [[UInt8]] = []
    func append(_ body: [UInt8]) { lock.withLock { list.append(body) } }
    var all: [[UInt8]] { lock.withLock { list } }
}

/// Runs `work` on `count` threads of their own, released together, and returns when all have ended.
enum AllAtOnce {
    static func run(_ count: Int, _ work: @escaping @Sendable () -> Void) {
        let start = DispatchSemaphore(value: 0), done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread {
                start.wait()
                work()
                done.leave()
            }.start()
        }
        for _ in 0..<count { start.signal() }
        done.wait()
    }
}
