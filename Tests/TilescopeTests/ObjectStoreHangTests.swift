import Foundation
import ObjectStore
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// A store that accepts connections and never answers (a real SeaweedFS stopped with SIGSTOP: the kernel still
/// takes connections into its backlog): the first cold read waits out the store's timeouts and answers 503; once
/// it has, cold reads answer 503 with `Retry-After` at once instead of each holding a worker thread for as long,
/// warm tiles are served, and when the store goes on again the cold tiles come back without a restart.
@Suite(.serialized) struct ObjectStoreHangTests {
    @Test func aStoreThatHangsIsWaitedForOnceNotByEveryColdRead() throws {
        let seaweed = try SeaweedServer.standalone()
        defer { seaweed.stop() }
        let bucket = try StoreBucket(seaweed, "pyramids")
        let (environment, store) = (bucket.environment, bucket.store("hang"))
        let (root, images) = try StoreBucket.folders("store-hang")
        let (width, height) = (2600, 1900)
        try TestImages.writeJPEG(width: width, height: height, to: images + "/wide.jpg", seed: 3)

        let builder = try ServerProcess(images: images, data: root + "/builder", extra: store, environment: environment)
        let version = try #require(try Self.readyVersion(builder))
        // A replica with nothing on its disk: every tile it answers is fetched from the store first.
        let replica = try ServerProcess(images: images, data: root + "/replica", extra: store, environment: environment)
        #expect(try Self.readyVersion(replica) == version)
        let pyramid = Pyramid(width: width, height: height)
        let level = pyramid.maxLevel
        let grid = pyramid.tileGrid(ofLevel: level)
        let warm = "/dzi/wide_files/\(level)/0_1.jpeg?v=\(version)"
        #expect(try RawHTTP.get(replica.port, warm).status == 200)

        seaweed.freeze()
        // The cold tiles: the first row's that the replica does not have on its disk once the store is stopped. A
        // fetch whose answer was already on its way as the store stopped can still land: the listing is taken
        // again until it holds still.
        let local = Self.settledListing(root + "/replica", of: "image_files/\(level)/")
        let tiles = (0..<grid.columns).filter { column in !local.contains { $0.hasSuffix("/\(column)_0.jpeg") } }
            .prefix(8).map { "/dzi/wide_files/\(level)/\($0)_0.jpeg?v=\(version)" }
        try #require(tiles.count == 8, "the replica already had \(local)")
        // The first cold read learns that the store hangs: the store's own timeouts, then 503.
        let firstStarted = Date()
        let first = try RawHTTP(port: replica.port, timeoutSeconds: 120).send("GET", tiles[0])
        #expect(first.status == 503, """
            \(first.status) (\(first.header("Content-Type") ?? "")) after \(Date().timeIntervalSince(firstStarted)) s
            the replica's tiles of level \(level) at the freeze: \(local)
            and after the first read: \(Self.settledListing(root + "/replica", of: "image_files/\(level)/"))
            \(replica.log.suffix(3000))
            """)
        // From then on: 503 at once, several at a time, none held for the store's timeouts.
        let started = Date()
        let port = replica.port
        let replies = Self.concurrently(tiles.dropFirst().map { path in { @Sendable in try RawHTTP(port: port, timeoutSeconds: 120).send("GET", path) } })
        let waited = Date().timeIntervalSince(started)
        for reply in replies {
            #expect(reply?.status == 503 && reply?.header("Retry-After") != nil, "\(reply?.status ?? 0) \(reply?.text.prefix(200) ?? "")")
            #expect(reply?.json?["error"] as? String == "store_unavailable")
        }
        // The store's timeouts are 10 s an exchange, three sends: a cold read that waited for them took over 10 s.
        #expect(waited < 8, "cold reads waited \(waited) s for a store known to hang")
        #expect(try RawHTTP.get(replica.port, warm).status == 200, "a warm tile is not served while the store hangs")

        seaweed.thaw()
        let expected = try RawHTTP.get(builder.port, tiles[1])
        #expect(expected.status == 200)
        let end = Date().addingTimeInterval(120)
        var back = try RawHTTP(port: replica.port, timeoutSeconds: 120).send("GET", tiles[1])
        while back.status != 200, Date() < end {
            Thread.sleep(forTimeInterval: 0.5)
            back = try RawHTTP(port: replica.port, timeoutSeconds: 120).send("GET", tiles[1])
        }
        #expect(back.status == 200 && back.body == expected.body, "\(back.status) once the store went on\n\(replica.log.suffix(2000))")
    }

    /// Runs each request on a thread of its own, all at once; nil where one threw.
    static func concurrently(_ requests: [@Sendable () throws -> RawHTTP.Reply]) -> [RawHTTP.Reply?] {
        let results = Results(count: requests.count)
        let group = DispatchGroup()
        for (index, request) in requests.enumerated() {
            group.enter()
            Thread.detachNewThread {
                results.set(index, try? request())
                group.leave()
            }
        }
        group.wait()
        return results.all
    }

    /// The files under `folder` whose path contains `part`, listed again every half second (at most ten times)
    /// until two listings agree.
    static func settledListing(_ folder: String, of part: String) -> [String] {
        func list() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).filter { $0.contains(part) }.sorted()
        }
        var listing = list()
        for _ in 0..<10 {
            Thread.sleep(forTimeInterval: 0.5)
            let again = list()
            if again == listing { break }
            listing = again
        }
        return listing
    }

    /// Polls `/api/images` until `wide` is ready; its version.
    static func readyVersion(_ server: ServerProcess) throws -> String? {
        let end = Date().addingTimeInterval(180)
        while Date() < end {
            let images = (try? RawHTTP.get(server.port, "/api/images").json?["images"] as? [[String: Any]]) ?? []
            if let wide = images.first(where: { $0["id"] as? String == "wide" }), wide["status"] as? String == "ready" {
                return ObjectStoreOutageBuildTests.version(wide)
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw TestFailure("wide not ready\n\(server.log.suffix(3000))")
    }
}

private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [RawHTTP.Reply?]
    init(count: Int) { replies = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ reply: RawHTTP.Reply?) { lock.withLock { replies[index] = reply } }
    var all: [RawHTTP.Reply?] { lock.withLock { replies } }
}
