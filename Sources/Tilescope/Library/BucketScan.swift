import Catalog
import Foundation
import Imaging

/// A pass over an images bucket: one listing (`BucketSources.list`), compared with the library by name and
/// fingerprint (size and ETag). New and changed objects get a fresh record and a build, removed ones lose
/// their record and pyramids, unchanged ones cost nothing. No byte of any object is read: the header is read
/// at build time, from the download (`SourceDownload`), so the pixel limit is applied there.
extension FolderScanner {
    func scanBucket(_ bucket: BucketSources) -> (changed: Bool, settling: Set<String>) {
        let listing: [BucketObject]
        do {
            listing = try bucket.list()
        } catch {
            return (false, [])  // never taken for an empty bucket: the library stands until a listing answers whole
        }
        let ids: [String: String]
        do {
            ids = try identities.ids(for: listing.map(\.name))
        } catch {
            Log.error("cannot read or record image ids in the catalog (retried at the next scan): \(error)")
            return (false, [])
        }
        let records = library.all
        var previous: [String: Int] = [:]
        previous.reserveCapacity(records.count)
        for (at, record) in records.enumerated() where previous[record.fileName] == nil { previous[record.fileName] = at }
        var next: [ImageRecord] = []
        next.reserveCapacity(listing.count)
        var changed = false
        for object in listing {
            guard let id = ids[object.name] else { continue }
            let version = object.version
            if let at = previous[object.name], records[at].id == id, records[at].isVersion(version) {
                next.append(records[at])
            } else {
                changed = true
                next.append(record(of: object, id: id, version: version, bucket: bucket))
            }
        }
        changed = changed || next.count != previous.count
        library.replaceAll(next)  // records first: no reader finds a record whose pyramid is being removed
        let kept = Set(next.map(\.id))
        for at in previous.values where !kept.contains(records[at].id) {
            store.removeVersions(of: records[at].id, except: nil)
        }
        for record in next where !(previous[record.fileName].map { records[$0].hasSameVersion(as: record) } ?? false) {
            if case .queued = record.status { builds.enqueue(record) }
        }
        return (changed, [])
    }

    /// Whether an object over `--max-upload-bytes` may still be a pyramid served by ranges, never downloaded (a
    /// slide of gigabytes): named as a TIFF and not ruled to be built. If its probe finds no pyramid, its download
    /// refuses it for its size (`SourceDownload`), and that failure is remembered as this bound's would be.
    static func mayBeServedDirectly(_ name: String, limits: SourceLimits) -> Bool {
        DirectSources.rangedExtensions.contains((name as NSString).pathExtension.lowercased()) && limits.pyramidsExempt(name)
    }

    /// A new or changed object's record: ready when its version is published, failed when it cannot be built
    /// (empty, over the size bound, or this very version failed before), else queued with no header yet.
    private func record(of object: BucketObject, id: String, version: String, bucket: BucketSources) -> ImageRecord {
        var record = ImageRecord(id: id, fileName: object.name, folder: folder, version: version,
                                 stamp: SourceFingerprint.Stamp(size: object.size, modifiedNanoseconds: 0),
                                 header: nil, status: .queued)
        if let manifest = store.manifest(id: id, version: version) {
            record.header = ImageHeader(width: manifest.width, height: manifest.height, bands: 3)
            record.status = .ready(manifest)
        } else if object.size == 0 {
            record.status = .failed("\(object.name): the object is empty (0 bytes); it is looked at again when it changes")
        } else if object.size > bucket.maxObjectBytes, !Self.mayBeServedDirectly(object.name, limits: limits) {
            record.status = .failed("\(object.name) is not built: the object has \(object.size) bytes, more than this server's "
                                    + "limit of \(bucket.maxObjectBytes) (--max-upload-bytes, TILESCOPE_MAX_UPLOAD_BYTES)")
        } else if let failure = try? failures?.failure(fileName: object.name, version: version) {
            record.status = .failed(failure.reason)  // this very version failed before: not again
        }
        return record
    }
}
