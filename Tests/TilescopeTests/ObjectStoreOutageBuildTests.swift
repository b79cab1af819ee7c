import Foundation
import ObjectStore
import TestSupport
import Testing
@testable import Tilescope

/// A build that meets the pyramid store down is the machine's failure, not the file's: the image is listed as
/// failed with the store's reason meanwhile, built again with backoff, and ready once the store answers, with no
/// restart and no change to its source (a real SeaweedFS stopped and started under a real `tilescope serve`).
@Suite(.serialized) struct ObjectStoreOutageBuildTests {
    @Test func anImageAddedWhileTheStoreIsDownIsBuiltOnceItIsBack() throws {
        let seaweed = try SeaweedServer.standalone()
        defer { seaweed.stop() }
        let bucket = try StoreBucket(seaweed, "pyramids")
        let (client, environment) = (bucket.client, bucket.environment)
        let store = bucket.store("outage") + ["--rescan", "1", "--settle", "0"]
        let (root, images) = try StoreBucket.folders("store-outage-build")
        try TestImages.writeJPEG(width: 700, height: 500, to: images + "/first.jpg", seed: 1)
        let server = try ServerProcess(images: images, data: root + "/data", extra: store, environment: environment)
        _ = try Self.waitFor(server, "first ready") { $0["first"]?["status"] as? String == "ready" }

        seaweed.interrupt()
        try TestImages.writeJPEG(width: 640, height: 480, to: root + "/second.jpg", seed: 2)
        #expect(rename(root + "/second.jpg", images + "/second.jpg") == 0)
        let failed = try Self.waitFor(server, "second failed while the store is down") {
            $0["second"]?["status"] as? String == "failed"
        }
        let reason = failed["second"]?["reason"] as? String ?? ""
        #expect(!reason.isEmpty, "a failed image says why")
        #expect(server.log.contains("not the file's fault: retried in"), "the failure is not held against the file:\n\(server.log.suffix(3000))")

        try seaweed.restart()
        let back = try Self.waitFor(server, "second ready once the store is back", timeout: 120) {
            $0["second"]?["status"] as? String == "ready"
        }
        #expect(back["first"]?["status"] as? String == "ready")
        #expect(try client.headObject("outage/pyramids/second/" + (try #require(Self.version(back["second"]))) + "/pyramid.json").size > 0,
                "the version is published to the store")
        #expect(try RawHTTP.get(server.port, "/dzi/second_files/0/0_0.jpeg").status == 200)
    }

    static func version(_ image: [String: Any]?) -> String? {
        guard let urls = image?["urls"] as? [String: Any], let dzi = urls["dzi"] as? String,
              let marker = dzi.range(of: "?v=") else { return nil }
        return String(dzi[marker.upperBound...])
    }

    /// Polls `/api/images` until `done` holds for the images by id, or fails with the server's log.
    @discardableResult
    static func waitFor(_ server: ServerProcess, _ what: String, timeout: Double = 90,
                        _ done: ([String: [String: Any]]) -> Bool) throws -> [String: [String: Any]] {
        let end = Date().addingTimeInterval(timeout)
        var last: [String: [String: Any]] = [:]
        while Date() < end {
            let images = (try? RawHTTP.get(server.port, "/api/images").json?["images"] as? [[String: Any]]) ?? []
            last = Dictionary(images.compactMap { image in (image["id"] as? String).map { ($0, image) } }, uniquingKeysWith: { a, _ in a })
            if done(last) { return last }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw TestFailure("\(what): not within \(timeout) s: \(last.mapValues { $0["status"] ?? "?" })\n\(server.log.suffix(4000))")
    }
}
