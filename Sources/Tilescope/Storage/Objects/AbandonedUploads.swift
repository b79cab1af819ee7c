import Foundation
import ObjectStore

/// Uploads that will never be published: a version's objects with no `pyramid.json`, none written for
/// `olderThan` seconds. A builder killed mid-upload leaves them; when that version is built again its publication
/// overwrites them and deletes its strays, and when its image changes or goes, the next publication or removal
/// deletes every other version of the id. What is left is an upload whose image no live replica will handle
/// again (its source removed while no replica remembered it, a fresh replica that never knew it): this sweep
/// finds those.
///
/// The sweep also removes **superseded versions**: a builder killed between publishing a new version and deleting
/// the image's older ones leaves an older version whole, and a replica that adopts the new version without building
/// it never deletes it (only a publication or removal does). Such a version goes once this replica serves another
/// version of the image that is published, and the superseded one's `pyramid.json` was written before the served
/// one's and over `olderThan` ago. The date order keeps a replica that has not yet seen a source change (it serves
/// the older version for up to a rescan interval) from deleting the newer version another replica just published;
/// the age gives such replicas, and clients holding the old version's URLs, time to move on. Left to chance: a
/// source reverted to a version published before (an old `pyramid.json` serving again) while another replica,
/// within the seconds before its rescan, still serves the newer one and sweeps; the revert's replicas then fetch
/// nothing of it and rebuild, as when a publication's cleanup removes a version another replica still serves.
///
/// Why the age is of the newest object, not the oldest: an upload in progress writes objects every few
/// milliseconds, so its newest object is always fresh; only one that stopped ages. The default (an hour) is far
/// beyond any pause of an upload, as the images folder's partial uploads are cleared after an hour untouched.
struct AbandonedUploads {
    /// A version's objects: the newest write among them, and whether its manifest is there.
    struct Version {
        var keys: [String] = []
        var newest: Date = .distantPast
        var published = false
        /// When its `pyramid.json` was written (nil: not published).
        var manifestWritten: Date?
    }

    /// Groups the keys under `{prefix}/pyramids/` by `{id}/{version}/`.
    static func versions(_ objects: [S3ListedObject], under root: String) -> [String: Version] {
        var versions: [String: Version] = [:]
        for object in objects where object.key.hasPrefix(root) {
            let parts = object.key.dropFirst(root.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { continue }
            let name = "\(parts[0])/\(parts[1])"
            var version = versions[name] ?? Version()
            version.keys.append(object.key)
            // A date the store did not give, or that cannot be read, counts as now: never a reason to delete.
            let written = object.lastModified.flatMap(Self.date) ?? Date()
            if parts[2] == FilePyramidStore.manifestName {
                version.published = true
                version.manifestWritten = written
            }
            version.newest = max(version.newest, written)
            versions[name] = version
        }
        return versions
    }

    /// The keys of the versions that are abandoned at `now`.
    static func doomed(_ versions: [String: Version], olderThan seconds: Double, now: Date) -> [String] {
        versions.values.filter { !$0.published && now.timeIntervalSince($0.newest) > seconds }.flatMap(\.keys)
    }

    /// The keys of the published versions superseded at `now` (see above): `served` says which version of an image
    /// this replica serves (nil: none, or the image is not known here). Each version's `pyramid.json` comes first,
    /// so that it stops being published before any of its files goes.
    static func superseded(_ versions: [String: Version], served: (String) -> String?, olderThan seconds: Double,
                           now: Date) -> [String] {
        var doomed: [String] = []
        for (name, version) in versions {
            guard let written = version.manifestWritten, now.timeIntervalSince(written) > seconds else { continue }
            let parts = name.split(separator: "/", maxSplits: 1)
            guard parts.count == 2, let current = served(String(parts[0])), current != String(parts[1]),
                  let currentWritten = versions["\(parts[0])/\(current)"]?.manifestWritten, currentWritten > written else { continue }
            let manifests = version.keys.filter { $0.hasSuffix("/" + FilePyramidStore.manifestName) }
            doomed += manifests + version.keys.filter { !$0.hasSuffix("/" + FilePyramidStore.manifestName) }
        }
        return doomed
    }

    /// S3's `LastModified` in a listing: ISO 8601 with or without milliseconds.
    static func date(_ text: String) -> Date? {
        let precise = ISO8601DateFormatter()
        precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return precise.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}

extension S3PyramidStore {
    /// Deletes the objects of abandoned uploads and of superseded versions (`AbandonedUploads`; `served` says which
    /// version of an image this replica serves); returns how many. Errors are logged: the next sweep tries again.
    @discardableResult
    func sweepAbandonedUploads(olderThan seconds: Double, served: (String) -> String? = { _ in nil }) -> Int {
        let root = location.key("pyramids/")
        do {
            var objects: [S3ListedObject] = []
            var token: String?
            for _ in 0..<Self.maxListingPages {
                let page = try client.listObjects(prefix: root, continuationToken: token, maxKeys: 1000)
                objects += page.objects
                guard let next = page.nextContinuationToken else { break }
                token = next
            }
            let versions = AbandonedUploads.versions(objects, under: root), now = Date()
            let doomed = AbandonedUploads.doomed(versions, olderThan: seconds, now: now)
            for key in doomed { try client.deleteObject(key) }
            if !doomed.isEmpty { Log.info("store: deleted \(doomed.count) objects of uploads never published (none written for \(Int(seconds)) s)") }
            let superseded = AbandonedUploads.superseded(versions, served: served, olderThan: seconds, now: now)
            for key in superseded { try client.deleteObject(key) }
            if !superseded.isEmpty {
                Log.info("store: deleted \(superseded.count) objects of versions superseded by the ones served (published over \(Int(seconds)) s ago)")
            }
            return doomed.count + superseded.count
        } catch {
            Log.info("store: cannot sweep abandoned uploads now: \(error)")
            return 0
        }
    }
}
