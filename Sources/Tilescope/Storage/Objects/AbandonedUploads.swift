import Foundation
import ObjectStore

/// Uploads that will never be published: a version's objects with no `pyramid.json`, none written for
/// `olderThan` seconds. A builder killed mid-upload leaves them; when that version is built again its publication
/// overwrites them and deletes its strays, and when its image changes or goes, the next publication or removal
/// deletes every other version of the id. What is left is an upload whose image no live replica will handle
/// again (its source removed while no replica remembered it, a fresh replica that never knew it): this sweep
/// finds those.
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
            if parts[2] == FilePyramidStore.manifestName { version.published = true }
            // A date the store did not give, or that cannot be read, counts as now: never a reason to delete.
            let written = object.lastModified.flatMap(Self.date) ?? Date()
            version.newest = max(version.newest, written)
            versions[name] = version
        }
        return versions
    }

    /// The keys of the versions that are abandoned at `now`.
    static func doomed(_ versions: [String: Version], olderThan seconds: Double, now: Date) -> [String] {
        versions.values.filter { !$0.published && now.timeIntervalSince($0.newest) > seconds }.flatMap(\.keys)
    }

    /// S3's `LastModified` in a listing: ISO 8601 with or without milliseconds.
    static func date(_ text: String) -> Date? {
        let precise = ISO8601DateFormatter()
        precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return precise.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}

extension S3PyramidStore {
    /// Deletes the objects of abandoned uploads (`AbandonedUploads`); returns how many. Errors are logged: the next
    /// sweep tries again.
    @discardableResult
    func sweepAbandonedUploads(olderThan seconds: Double) -> Int {
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
            let doomed = AbandonedUploads.doomed(AbandonedUploads.versions(objects, under: root), olderThan: seconds, now: Date())
            for key in doomed { try client.deleteObject(key) }
            if !doomed.isEmpty { Log.info("store: deleted \(doomed.count) objects of uploads never published (none written for \(Int(seconds)) s)") }
            return doomed.count
        } catch {
            Log.info("store: cannot sweep abandoned uploads now: \(error)")
            return 0
        }
    }
}
