import Foundation
import ObjectStore
import TestSupport
import Testing
@testable import Tilescope

/// A builder killed between publishing a new version and deleting the image's older ones leaves the older version
/// whole in the store; the replica that next serves the new version adopts it without building, so no publication
/// cleans up after it. The sweep does (`AbandonedUploads.superseded`). With a real SeaweedFS and real servers, the
/// state is made exactly: version 1 published on the prefix, version 2 published on another prefix and copied in
/// beside it (files first, `pyramid.json` last, as a builder publishes), which is what the dead builder leaves.
@Suite(.serialized) struct ObjectStoreSupersededTests {
    static let id = "sup"

    static func readyVersion(_ server: ServerProcess) -> String? {
        let images = (try? RawHTTP.get(server.port, "/api/images").json?["images"] as? [[String: Any]]) ?? []
        guard let image = images.first(where: { $0["id"] as? String == id }), image["status"] as? String == "ready",
              let urls = image["urls"] as? [String: Any], let dzi = urls["dzi"] as? String,
              let marker = dzi.range(of: "?v=") else { return nil }
        return String(dzi[marker.upperBound...])
    }

    static func waitReady(_ server: ServerProcess) throws -> String {
        let end = Date().addingTimeInterval(120)
        while Date() < end {
            if let version = readyVersion(server) { return version }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("the server did not serve the image:\n\(server.log.suffix(3000))")
    }

    /// Every key under `prefix`, with its bytes.
    static func objects(_ client: S3Client, under prefix: String) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        var token: String?
        repeat {
            let page = try client.listObjects(prefix: prefix, continuationToken: token, maxKeys: 1000)
            for object in page.objects { found[object.key] = try client.getObject(object.key).body }
            token = page.nextContinuationToken
        } while token != nil
        return found
    }

    @Test func aVersionSupersededByThePublishedOneServedIsSweptAndTheServedOneStaysWhole() throws {
        let seaweed = try SeaweedServer.shared()
        let credentials = SigV4Credentials(accessKeyID: seaweed.accessKey, secretAccessKey: seaweed.secretKey)
        let client = try S3Client(settings: S3Settings(endpoint: seaweed.endpoint, region: seaweed.region, bucket: "superseded",
                                                       credentials: credentials))
        try client.createBucket()
        let environment = ["AWS_ACCESS_KEY_ID": seaweed.accessKey, "AWS_SECRET_ACCESS_KEY": seaweed.secretKey]
        func store(_ prefix: String) -> [String] {
            ["--store", "s3://superseded/\(prefix)?endpoint=\(seaweed.endpoint)&region=\(seaweed.region)"]
        }
        let root = try TestScratch.folder("superseded")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let source = images + "/\(Self.id).jpg"

        // Version 1, published on the prefix `live`.
        try TestImages.writeJPEG(width: 1200, height: 900, to: source, seed: 1)
        let first = try ServerProcess(images: images, data: root + "/first", extra: store("live"), environment: environment)
        let old = try Self.waitReady(first)
        first.signal(SIGKILL)
        _ = try first.waitForExit()

        // Version 2, published by a server on another prefix, then put beside version 1 as its builder would have.
        try TestImages.writeJPEG(width: 1200, height: 900, to: root + "/next.jpg", seed: 2)
        guard rename(root + "/next.jpg", source) == 0 else { throw TestFailure("cannot move the source in") }
        let second = try ServerProcess(images: images, data: root + "/second", extra: store("aside"), environment: environment)
        let new = try Self.waitReady(second)
        second.signal(SIGKILL)
        _ = try second.waitForExit()
        #expect(new != old)
        let aside = try Self.objects(client, under: "aside/pyramids/\(Self.id)/\(new)/")
        let manifestKey = "aside/pyramids/\(Self.id)/\(new)/pyramid.json"
        // Packed: its manifest, its index, its packs, its descriptor and preview.
        #expect(aside[manifestKey] != nil && aside.count >= 5 && aside.keys.contains { $0.hasSuffix(".pack") })
        for (key, bytes) in aside where key != manifestKey {
            _ = try client.putObject("live" + key.dropFirst("aside".count), body: bytes)
        }
        // The store dates objects to the second, and the sweep keeps a version whose manifest is not strictly older
        // than the served one's: on a fast machine both were published within one second and nothing was swept.
        Thread.sleep(forTimeInterval: 1.1)
        _ = try client.putObject("live" + manifestKey.dropFirst("aside".count), body: aside[manifestKey] ?? [])
        let oldPrefix = "live/pyramids/\(Self.id)/\(old)/"
        let oldKeys = try Self.objects(client, under: oldPrefix)
        #expect(oldKeys["\(oldPrefix)pyramid.json"] != nil, "version 1 is not published whole before the sweep")

        // A fresh replica adopts version 2 without building it; its sweep deletes version 1, and only that.
        let replica = try ServerProcess(images: images, data: root + "/replica",
                                        extra: store("live") + ["--store-abandoned-after", "1"], environment: environment)
        defer { replica.signal(SIGKILL); _ = try? replica.waitForExit() }
        #expect(try Self.waitReady(replica) == new)
        // Sweeps run every second; under a loaded machine (the suites run in parallel) one may come late.
        let end = Date().addingTimeInterval(90)
        var left = oldKeys.count
        while left > 0 && Date() < end {
            Thread.sleep(forTimeInterval: 0.2)
            left = try client.listObjects(prefix: oldPrefix, maxKeys: 1000).objects.count
        }
        let manifests = try client.listObjects(prefix: "live/pyramids/\(Self.id)/", maxKeys: 1000).objects
            .filter { $0.key.hasSuffix("/pyramid.json") }.map { "\($0.key) \($0.lastModified ?? "?")" }
        #expect(left == 0, "\(left) objects of the superseded version are left; manifests: \(manifests) at \(Date())\n\(replica.log.suffix(2000))")
        let kept = try Self.objects(client, under: "live/pyramids/\(Self.id)/\(new)/")
        #expect(kept.count == aside.count, "the served version lost objects: \(kept.count) of \(aside.count)")
        for (key, bytes) in aside {
            #expect(kept["live" + key.dropFirst("aside".count)] == bytes, "\(key) changed")
        }
        #expect(replica.stderr.contains("superseded"))
        #expect(!replica.log.contains("built \(Self.id)"), "the replica built what it should have adopted")
    }
}
