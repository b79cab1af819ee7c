import Foundation
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// The parts of `--store s3://` that need no store: the URL and its settings, the disk cache's bound and
/// order, and the coalescing of fetches.
struct ObjectStoreLocalPartsTests {
    static let keys = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"]

    @Test func theURLsQueryWinsOverTheSettingsAndCredentialsComeOnlyFromTheEnvironment() throws {
        let location = try StoreLocation(url: "s3://tiles/a/b/?endpoint=http://127.0.0.1:9000&region=eu-west-1&path-style=false",
                                         endpoint: "http://elsewhere:1", region: "us-east-1", pathStyle: true, environment: Self.keys)
        #expect(location.prefix == "a/b")
        #expect(location.key("pyramids/x/1/image.dzi") == "a/b/pyramids/x/1/image.dzi")
        #expect(location.settings.endpointHost == "127.0.0.1" && location.settings.endpointPort == 9000)
        #expect(location.settings.region == "eu-west-1" && location.settings.addressing == .virtualHost)
        let bare = try StoreLocation(url: "s3://tiles", endpoint: "", region: "us-east-2", pathStyle: true, environment: Self.keys)
        #expect(bare.prefix.isEmpty && bare.key("pyramids/x") == "pyramids/x")
        #expect(bare.settings.endpointHost == "s3.us-east-2.amazonaws.com" && bare.settings.useTLS)
    }

    @Test func badStoresAreRefusedWithoutRepeatingASecret() {
        for url in ["s3://", "file:///tmp", "s3://tiles/../x", "s3://tiles?color=red", "s3://tiles?path-style=maybe",
                    "s3://user:hunter2@tiles/x", "s3://Bad_Bucket", "s3://tiles?endpoint=ftp://x"] {
            #expect(throws: UsageError.self, "\(url)") {
                try StoreLocation(url: url, endpoint: "", region: "us-east-1", pathStyle: true, environment: Self.keys)
            }
            do {
                _ = try StoreLocation(url: url, endpoint: "", region: "us-east-1", pathStyle: true, environment: Self.keys)
            } catch {
                #expect(!"\(error)".contains("hunter2"))
            }
        }
        #expect(throws: UsageError.self, "no credentials") {
            try StoreLocation(url: "s3://tiles", endpoint: "http://127.0.0.1:1", region: "us-east-1", pathStyle: true, environment: [:])
        }
    }

    @Test func theDiskCacheStaysUnderItsBoundAndEvictsTheLeastRecentlyAnsweredFirst() throws {
        let folder = try TestScratch.folder("store-disk-cache")
        let cache = StoreDiskCache(limitBytes: 1 << 20)
        let chunk = [UInt8](repeating: 7, count: 100_000)
        var paths: [String] = []
        for index in 0..<10 {
            let path = folder + "/\(index).jpeg"
            _ = FileManager.default.createFile(atPath: path, contents: Data(chunk))
            cache.add(path, size: chunk.count)
            paths.append(path)
        }
        cache.touch(paths[0])  // answered again: now the most recent of the old ones
        for index in 10..<14 {
            let path = folder + "/\(index).jpeg"
            _ = FileManager.default.createFile(atPath: path, contents: Data(chunk))
            cache.add(path, size: chunk.count)
            paths.append(path)
        }
        #expect(cache.bytes <= 1 << 20)
        #expect(cache.evictions > 0)
        #expect(FileManager.default.fileExists(atPath: paths[0]), "the file answered again was evicted")
        #expect(!FileManager.default.fileExists(atPath: paths[1]), "the least recently answered file is still there")
        #expect(FileManager.default.fileExists(atPath: paths[13]), "the file just added was evicted")
        let held = paths.filter { FileManager.default.fileExists(atPath: $0) }.count * chunk.count
        #expect(held == cache.bytes)
    }

    @Test func concurrentFetchesOfOneKeyRunOnceAndShareTheOutcome() {
        let coalescer = FetchCoalescer<Bool>()
        let runs = Counter(), outcomes = Counter()
        // Threads of their own (not concurrentPerform, which runs one per core): all twelve wait at once.
        AllAtOnce.run(12) {
            let fetched = (try? coalescer.run("k") {
                runs.add()
                Thread.sleep(forTimeInterval: 0.5)
                return true
            }) ?? false
            if fetched { outcomes.add() }
        }
        #expect(runs.value == 1)
        #expect(outcomes.value == 12)
        struct Down: Error {}
        let failures = Counter()
        AllAtOnce.run(4) {
            do { _ = try coalescer.run("k") { Thread.sleep(forTimeInterval: 0.3); throw Down() } } catch is Down { failures.add() } catch {}
        }
        #expect(failures.value == 4)
    }

    @Test func payloadsAreSignedUnlessTheStoreIsReachedOverTLSOrLoopback() throws {
        for (endpoint, signed) in [("http://127.0.0.1:9000", false), ("http://localhost:9000", false), ("http://[::1]:9000", false),
                                   ("https://s3.example.net", false), ("http://10.0.0.7:9000", true),
                                   ("http://127.example.net", true), ("http://seaweed:8333", true)] {
            let location = try StoreLocation(url: "s3://tiles", endpoint: endpoint, region: "us-east-1", pathStyle: true,
                                             environment: Self.keys)
            #expect(location.settings.signPayloads == signed, "\(endpoint)")
        }
    }

    @Test func onlyVersionsSupersededByAnOlderPublishedOneServedHereAreSwept() {
        let now = Date()
        func version(_ id: String, _ name: String, manifestAgo: Double?, files: Int = 2) -> (String, AbandonedUploads.Version) {
            var version = AbandonedUploads.Version()
            version.keys = (0..<files).map { "p/pyramids/\(id)/\(name)/image_files/9/\($0)_0.jpeg" }
            if let manifestAgo {
                version.keys.append("p/pyramids/\(id)/\(name)/pyramid.json")
                version.published = true
                version.manifestWritten = now.addingTimeInterval(-manifestAgo)
            }
            version.newest = now.addingTimeInterval(-(manifestAgo ?? 500))
            return ("\(id)/\(name)", version)
        }
        let versions = Dictionary(uniqueKeysWithValues: [
            version("a", "v1", manifestAgo: 900), version("a", "v2", manifestAgo: 300), version("a", "v0", manifestAgo: nil),
            version("b", "v1", manifestAgo: 900), version("b", "v2", manifestAgo: 300),
            version("c", "v1", manifestAgo: 900), version("c", "v2", manifestAgo: nil),
        ])
        // a serves v2: v1 (older, published) goes, its manifest first; v0 (unpublished) is the other rule's.
        // b serves v1, not yet told of v2 (a rescan behind): v2 is newer and stays. c serves a version not published.
        let served = ["a": "v2", "b": "v1", "c": "v2"]
        let doomed = AbandonedUploads.superseded(versions, served: { served[$0] }, olderThan: 60, now: now)
        #expect(doomed.first == "p/pyramids/a/v1/pyramid.json")
        #expect(Set(doomed) == Set(versions["a/v1"]!.keys))
        // Too young: a superseded version stays until its manifest is older than the setting.
        #expect(AbandonedUploads.superseded(versions, served: { served[$0] }, olderThan: 1000, now: now).isEmpty)
        // An image not served here: nothing of it goes.
        #expect(AbandonedUploads.superseded(versions, served: { _ in nil }, olderThan: 60, now: now).isEmpty)
    }

    @Test func theFullPassIsSentAsItIsWrittenOnlyWholeTilesOfTheVersionsLevelsAndEachOnce() throws {
        // Levels 12 (10 x 1 tiles), 13 (20 x 1) and 14 (40 x 2); the base holds 0...12.
        let pyramid = ScrollGeometry.Pyramid(width: 254 * 40, height: 254 * 2)
        #expect(pyramid.maxLevel == 14 && pyramid.tileGrid(ofLevel: 14) == (40, 2))
        let root = try TestScratch.folder("pass-uploads")
        let pass = root + "/rest/image_files", published = root + "/published/image_files"
        for level in 12...14 { try FileManager.default.createDirectory(atPath: "\(pass)/\(level)", withIntermediateDirectories: true) }
        try FileManager.default.createDirectory(atPath: published, withIntermediateDirectories: true)
        let sent = SentTiles()
        // Slow PUTs of level 14 keep a backlog, so level 13's tile is queued well before a worker opens it.
        let uploads = PassUploads(passTiles: pass, publishedTiles: published, threads: 3, scanInterval: 0.01) { place, bytes in
            if place.hasPrefix("14/") { Thread.sleep(forTimeInterval: 0.02) }
            sent.add(place, bytes)
        }
        func write(_ place: String, _ text: String) throws {
            let final = pass + "/" + place
            let temporary = (final as NSString).deletingLastPathComponent + "/.gsf-save-\(UUID().uuidString.prefix(6))"
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            #expect(rename(temporary, final) == 0)
        }
        try write("12/0_0.jpeg", "coarse, the base's own")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(sent.places.isEmpty, "tiles were sent before the base said which levels are the version's")
        uploads.send(levelsFrom: 13, of: pyramid)
        for column in 0..<40 { try write("14/\(column)_0.jpeg", "tile \(column)") }
        try write("14/5_1.jpeg", "second row")
        try write("13/0_0.jpeg", "level 13")
        // Once the scanner has queued it (on a loaded machine that can take longer than any fixed pause).
        let seen = Date().addingTimeInterval(30)
        while !uploads.queued.contains("13/0_0.jpeg") && Date() < seen { Thread.sleep(forTimeInterval: 0.005) }
        #expect(uploads.queued.contains("13/0_0.jpeg"), "the scanner never saw level 13's tile")
        // A level handed over (renamed into the local copy) with a tile queued but not yet sent: read from there.
        #expect(rename(pass + "/13", published + "/13") == 0)
        try Data("still being written".utf8).write(to: URL(fileURLWithPath: pass + "/14/.gsf-save-XYZ"))
        try Data("not a dzsave tile".utf8).write(to: URL(fileURLWithPath: pass + "/14/0_1.png"))
        let identities = uploads.finish()
        let places = sent.places
        #expect(places.count == 42 && Set(places).count == 42, "each tile once: \(places.count)")
        #expect(!places.contains { $0.hasPrefix("12/") || $0.contains(".gsf") || $0.hasSuffix(".png") })
        #expect(sent.bytes["14/7_0.jpeg"] == Array("tile 7".utf8) && sent.bytes["13/0_0.jpeg"] == Array("level 13".utf8))
        #expect(sent.bytes["14/5_1.jpeg"] == Array("second row".utf8))
        #expect(Set(identities.keys) == Set(places))
        #expect(identities["14/7_0.jpeg"] == PassUploads.Identity.of(pass + "/14/7_0.jpeg"))
        // Rewritten after it was sent: its identity differs, so the publication's last pass sends it again.
        try write("14/7_0.jpeg", "tile 7, again")
        #expect(identities["14/7_0.jpeg"] != PassUploads.Identity.of(pass + "/14/7_0.jpeg"))
    }
}

private final class SentTiles: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var sent: [(String, [UInt8])] = []
    func add(_ place: String, _ bytes: [UInt8]) { lock.withLock { sent.append((place, bytes)) } }
    var places: [String] { lock.withLock { sent.map(\.0) } }
    var bytes: [String: [UInt8]] { lock.withLock { Dictionary(sent, uniquingKeysWith: { $1 }) } }
}

private final class Counter: @unchecked Sendable {  // `count` is guarded by `lock`
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
