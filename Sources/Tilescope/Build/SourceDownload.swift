import Catalog
import Foundation
import Imaging
import ObjectStore

/// Brings a bucket source to the local disk for its build: streamed into a staging file of its own
/// (`{data}/source-staging/`, named by the server, never by the key), a range at a time, so memory holds one
/// range (8 MiB) whatever the object's size and the disk at most `--max-upload-bytes` per build. The bytes must
/// be of the version being built (size and ETag as listed), and the header is checked against the source
/// limits before the build decodes a pixel. The caller removes the file once the build is done.
struct SourceDownload: Sendable {
    let bucket: BucketSources
    /// `{data}/source-staging`.
    let folder: String
    let limits: SourceLimits

    static let folderName = "source-staging"
    /// A staging file untouched this long belongs to no live download (a process that died): removed at start.
    static let abandonedSeconds = 3600

    init(bucket: BucketSources, dataFolder: String, limits: SourceLimits) throws {
        self.bucket = bucket
        folder = dataFolder + "/" + Self.folderName
        self.limits = SourceLimits(maxPixels: limits.maxPixels)  // built, never served from its own levels
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    /// The refusal of an object for what it is, not for the store or the machine: remembered like a file
    /// libvips cannot read, and not built again until the object changes.
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// The path of a local copy of `record`'s version, its header within the limits. Throws
    /// `PartPublisher.SourceChanged` when the object is no longer that version (the next listing has the new
    /// one), `Refused` for an object over a limit, the store's `S3Error` when it fails (the build is retried).
    func stage(_ record: ImageRecord) throws -> String {
        let path = folder + "/\(getpid())-\(UUID().uuidString)" + Self.suffix(of: record.fileName)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw S3Client.DownloadRefusal.cannotWrite("cannot create a staging file: \(String(cString: strerror(errno)))")
        }
        var kept = false
        defer { if !kept { unlink(path) } }
        let info: S3ObjectInfo
        var storeFailed = true
        defer { bucket.countDownload(failed: storeFailed) }
        do {
            defer { close(descriptor) }
            // Not fsynced: a crash loses the build that reads it anyway, and the next start removes it.
            info = try bucket.client.download(bucket.key(of: record.fileName), into: descriptor, maxBytes: bucket.maxObjectBytes,
                                              rangeBytes: BucketSources.rangeBytes)
            storeFailed = false
        } catch S3Client.DownloadRefusal.changed {
            storeFailed = false
            throw PartPublisher.SourceChanged()
        } catch S3Client.DownloadRefusal.cannotWrite(let why) {
            storeFailed = false  // the local disk's trouble, not the store's
            throw S3Client.DownloadRefusal.cannotWrite(why)
        } catch S3Client.DownloadRefusal.tooLarge(let size, let limit) {
            storeFailed = false
            throw Refused(description: "the object has \(size) bytes, more than this server's limit of \(limit) (--max-upload-bytes)")
        }
        // A 404 stays the store's error: retried with the machine's backoff until a listing drops the object (or
        // for good, if the listing shows a key a GET cannot find), and shown meanwhile, never "building" forever.
        guard let etag = info.etag, SourceFingerprint.object(size: info.size, etag: etag).value == record.version else {
            throw PartPublisher.SourceChanged()
        }
        if let breach = limits.breach(of: try ImageHeader.read(path)) {
            throw Refused(description: "\(record.fileName) is not built: \(breach)")
        }
        kept = true
        return path
    }

    /// The name's extension, kept for the loaders that go by it: letters and digits only, at most 8.
    static func suffix(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name[..<dot].hasSuffix("/") else { return "" }
        let ext = name[name.index(after: dot)...].lowercased()
        guard !ext.isEmpty, ext.utf8.count <= 8, ext.utf8.allSatisfy({ (48...57).contains($0) || (97...122).contains($0) }) else {
            return ""
        }
        return "." + ext
    }

    /// Removes staging files a dead process left behind (untouched for an hour: a live download writes).
    func removeAbandoned() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let cutoff = time(nil) - Self.abandonedSeconds
        for name in names {
            var info = stat()
            if stat("\(folder)/\(name)", &info) == 0, info.st_mtim.tv_sec < cutoff { unlink("\(folder)/\(name)") }
        }
    }
}
