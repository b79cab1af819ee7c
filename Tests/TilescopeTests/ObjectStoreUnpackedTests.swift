import Foundation
import ObjectStore
import TestSupport
import Testing
@testable import Tilescope

/// `--store-pack-mb 0`, for a rolling upgrade from replicas older than packs: a build puts every tile as an object
/// of its own (the streamed pass's and the base's), its `pyramid.json` names no index, publication keeps them all
/// (none taken for a stray), and a replica that packs serves that version byte for byte as its builder does.
@Suite(.serialized) struct ObjectStoreUnpackedTests {
    @Test func withNoPacksEveryTileIsAnObjectOfItsOwnAndEveryReplicaServesIt() throws {
        let bucket = try StoreBucket(try SeaweedServer.shared(), "unpacked-\(UInt32.random(in: 0...UInt32.max))")
        let (client, environment, store) = (bucket.client, bucket.environment, bucket.store("p"))
        let (root, images) = try StoreBucket.folders("store-unpacked")
        // ObjectStoreServingTests' wide JPEG: built progressively, its last level streamed while the pass runs.
        try TestImages.writeJPEG(width: 2600, height: 1900, to: images + "/wide.jpg", seed: 0)

        let builder = try ServerProcess(images: images, data: root + "/builder", extra: store + ["--store-pack-mb", "0"],
                                        environment: environment)
        let version = try #require(try ObjectStoreHangTests.readyVersion(builder))
        let prefix = "p/pyramids/wide/\(version)/"
        let keys = Set(try ObjectStoreSupersededTests.objects(client, under: prefix).keys)
        let tiles = ObjectStoreServingTests.tilePaths("wide")
        let tileKeys = Set(tiles.map { prefix + "image_files/" + $0.dropFirst("/dzi/wide_files/".count) })
        #expect(tileKeys.isSubset(of: keys), "tiles missing from the store: \(tileKeys.subtracting(keys).sorted().prefix(5))")
        #expect(!keys.contains { $0.hasPrefix(prefix + "packs/") }, "packs written with --store-pack-mb 0")
        let manifest = try client.getObject(prefix + "pyramid.json").body
        #expect(!String(decoding: manifest, as: UTF8.self).contains("packIndex"), "the manifest names a pack index")

        let replica = try ServerProcess(images: images, data: root + "/replica", extra: store, environment: environment)
        #expect(try ObjectStoreHangTests.readyVersion(replica) == version)
        for path in tiles {
            let expected = try RawHTTP.get(builder.port, path + "?v=\(version)")
            let served = try RawHTTP.get(replica.port, path + "?v=\(version)")
            #expect(expected.status == 200 && served.status == 200 && served.body == expected.body, "\(path): \(served.status)")
        }
        #expect(try ObjectStoreServingTests.builds(replica) == 0, "the replica built the version")
    }
}
