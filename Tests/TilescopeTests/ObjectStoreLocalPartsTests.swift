import Foundation
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
        let coalescer = FetchCoalescer()
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
}

private final class Counter: @unchecked Sendable {  // `count` is guarded by `lock`
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
