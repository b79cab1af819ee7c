import Foundation
import ObjectStore
import TestSupport
@testable import Tilescope

/// What the store holds of one published version, read the way a reader must: its `pyramid.json`, then (packed) its
/// index and each pack whole, every tile cut from its pack, and every other file as its own object. For the tests
/// that check a published version byte for byte against a build into a local folder.
struct StoredVersion {
    /// Every file of the version by its path inside it (`image.dzi`, `image_files/12/0_0.jpeg`...).
    var files: [String: [UInt8]] = [:]
    /// The objects the version is made of, by name inside it: its manifest, index, packs and other files.
    var objects: Set<String> = []
    /// Every key under the version's prefix, by name inside it (`objects` and whatever else is there).
    var keys: Set<String> = []
    var manifest: PyramidManifest

    /// `prefix`: the version's, `.../pyramids/{id}/{version}/`.
    init(_ client: S3Client, prefix: String) throws {
        let manifestBytes = try client.getObject(prefix + "pyramid.json").body
        manifest = try JSONDecoder().decode(PyramidManifest.self, from: Data(manifestBytes))
        files["pyramid.json"] = manifestBytes
        objects = ["pyramid.json"]
        var token: String?
        repeat {
            let page = try client.listObjects(prefix: prefix, continuationToken: token, maxKeys: 1000)
            for object in page.objects { keys.insert(String(object.key.dropFirst(prefix.count))) }
            token = page.nextContinuationToken
        } while token != nil
        if let name = manifest.packIndex {
            guard PackIndex.isIndexName(name) else { throw TestFailure("the manifest names the index \(name)") }
            let index = try PackIndex.parse(try client.getObject(prefix + name).body)
            objects.insert(name)
            var packs: [[UInt8]] = []
            for pack in index.packs {
                let bytes = try client.getObject(prefix + pack.name).body
                guard bytes.count == pack.size else { throw TestFailure("\(pack.name) holds \(bytes.count) bytes, not \(pack.size)") }
                packs.append(bytes)
                objects.insert(pack.name)
            }
            for (path, entry) in index.entries { files[path] = Array(packs[entry.pack][entry.range]) }
        }
        // The other files are objects of their own (all of them, tiles too, in a version published before packs).
        for key in keys where key != "pyramid.json" && !key.hasPrefix(PackIndex.folder + "/")
            && (manifest.packIndex == nil || !S3PyramidStore.isPacked(key)) {
            files[key] = try client.getObject(prefix + key).body
            objects.insert(key)
        }
    }

    /// The version's files but its manifest: what a build into a local folder makes of the pyramid.
    var pyramidFiles: [String: [UInt8]] { files.filter { $0.key != "pyramid.json" } }
}
