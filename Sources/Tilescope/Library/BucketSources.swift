import Catalog
import Foundation
import ObjectStore
import Synchronization

/// An images bucket (`--images s3://bucket/prefix`): its objects are the sources, as a folder's files are.
///
/// A rescan lists the prefix with ListObjectsV2, 1,000 keys a page, and nothing else: no HEAD, no GET. The
/// listing gives each object's size and ETag, which make its fingerprint (`SourceFingerprint.object`), so a
/// new, changed or removed object is noticed from the listing alone, for ⌈objects / 1,000⌉ requests a pass.
/// A source's bytes are read only when it is built (`SourceDownload`), and uploads are written here.
public final class BucketSources: Sendable {
    let client: S3Client
    /// Keys of sources begin with `prefix + "/"` (the whole bucket when empty).
    let prefix: String
    /// `s3://bucket/prefix`: what logs and the library's records say the sources are in.
    public let location: String
    /// Largest object built (`--max-upload-bytes`): larger ones are listed as failed, never downloaded.
    let maxObjectBytes: Int
    /// Why the last listing failed (nil: it answered), for `/readyz`.
    private let lastFailure = Mutex<String?>(nil)
    /// The refused keys last logged, so a rescan that finds the same ones says nothing.
    private let refusedLogged = Mutex<Int>(0)
    /// What the bucket has been asked since start, for `/metrics`: what a rescan costs is seen, not assumed.
    private let counts = Mutex(BucketRequestCounts())

    /// Most objects one listing takes in: a bound on memory and time whatever the bucket holds (a gallery
    /// of 100,000 images is a tenth of it). Beyond it the listing fails, and the library stands as it was.
    static let maxObjects = 1_000_000
    static let pageSize = 1000
    /// Longest continuation token passed back to the store.
    static let maxTokenBytes = 4096
    /// One exchange, once connected: a range of a download or a whole upload's PUT (a gigabyte takes
    /// seconds on a local network), so longer than the pyramid store's.
    static let requestTimeoutSeconds = 120.0
    /// Bytes of one ranged GET of a download: what a download holds in memory.
    static let rangeBytes = 8 << 20

    /// Keys asked for per listing page (S3's most: 1,000); smaller only in tests, to see several pages.
    let pageSize: Int

    init(client: S3Client, prefix: String, location: String, maxObjectBytes: Int, pageSize: Int = BucketSources.pageSize) {
        self.client = client
        self.prefix = prefix
        self.location = location
        self.maxObjectBytes = maxObjectBytes
        self.pageSize = min(max(pageSize, 1), Self.pageSize)
    }

    /// From `--images s3://...`, with the same endpoint, region and path-style rules as `--store`.
    convenience init(url: String, endpoint: String, region: String, pathStyle: Bool, environment: [String: String],
                     maxObjectBytes: Int) throws {
        let parsed: StoreLocation
        do {
            parsed = try StoreLocation(url: url, endpoint: endpoint, region: region, pathStyle: pathStyle, environment: environment)
        } catch let error as UsageError {
            // StoreLocation's texts speak of --store, whose URL rules these are.
            throw UsageError("--images: " + error.message.replacingOccurrences(of: "--store s3://", with: "--images s3://")
                .replacingOccurrences(of: "store's ", with: "the URL's ").replacingOccurrences(of: "store must", with: "it must"))
        }
        var settings = parsed.settings
        settings.http.requestTimeout = Self.requestTimeoutSeconds
        // A range is 8 MiB; a listing page of 1,000 keys of 1,024 bytes is about 1.3 MB.
        settings.http.maxBodyBytes = 2 * Self.rangeBytes
        let client: S3Client
        do { client = try S3Client(settings: settings) } catch { throw UsageError("--images: \(error)") }
        let shown = "s3://\(settings.bucket)" + (parsed.prefix.isEmpty ? "" : "/\(parsed.prefix)")
        self.init(client: client, prefix: parsed.prefix, location: shown, maxObjectBytes: maxObjectBytes)
    }

    /// Whether `url` names an images bucket rather than a folder.
    public static func isBucket(_ url: String) -> Bool { StoreLocation.isObjectStore(url) }

    /// Whether keys under `prefix` of `bucket` at `endpoint` (its Host header) would be in this listing.
    func contains(bucket other: String, endpoint: String, prefix inner: String) -> Bool {
        guard other == client.settings.bucket, endpoint == client.settings.hostHeader else { return false }
        return prefix.isEmpty || inner == prefix || inner.hasPrefix(prefix + "/")
    }

    /// The key of the source called `name`.
    func key(of name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }

    /// Every source object under the prefix, sorted by name: all pages or an error (a listing cut short is
    /// never taken for a bucket that lost objects).
    func list() throws -> [BucketObject] {
        do {
            let objects = try listAll()
            let was = lastFailure.withLock { failure in
                defer { failure = nil }
                return failure
            }
            if was != nil { Log.info("\(location) answers listings again") }
            return objects
        } catch {
            let reason = "\(location) cannot be listed: \(error)"
            // Said when it starts, not at every pass while the store is away (/readyz says it meanwhile).
            let first = lastFailure.withLock { failure in
                defer { failure = reason }
                return failure == nil
            }
            if first { Log.error("\(reason) (the library stands as it was; listed again at every pass)") }
            throw error
        }
    }

    /// Nil while the last listing answered, else why it did not.
    var unreachableReason: String? { lastFailure.withLock { $0 } }

    /// The requests made so far.
    var requestCounts: BucketRequestCounts { counts.withLock { $0 } }

    /// Counts one download for a build (`SourceDownload`), and whether it failed for the store's sake.
    func countDownload(failed: Bool) {
        counts.withLock {
            $0.downloads += 1
            if failed { $0.downloadFailures += 1 }
        }
    }

    /// Counts one ranged GET of a source served from its own levels (`BucketObjectRanges`).
    func countRange(bytes: Int, failed: Bool) {
        counts.withLock {
            $0.rangeRequests += 1
            $0.rangeBytes += bytes
            if failed { $0.rangeFailures += 1 }
        }
    }

    private func listAll() throws -> [BucketObject] {
        var objects: [BucketObject] = []
        var refused: [(key: String, why: BucketObjectName.Refusal)] = []
        var token: String?
        var tokensSeen: Set<String> = []
        var listed = 0
        repeat {
            counts.withLock { $0.listRequests += 1 }
            let page = try client.listObjects(prefix: prefix.isEmpty ? nil : prefix + "/", continuationToken: token,
                                              maxKeys: pageSize)
            listed += page.objects.count
            guard listed <= Self.maxObjects else {
                throw S3Error.malformedResponse("the listing holds more than \(Self.maxObjects) objects, this server's bound")
            }
            for entry in page.objects {
                switch BucketObjectName.name(of: entry.key, prefix: prefix) {
                case .failure(let why): refused.append((entry.key, why))
                case .success(let name):
                    // An object without a usable ETag cannot be told apart from its next version: not a source.
                    guard let etag = entry.etag, BucketObjectName.isUsable(etag: etag) else {
                        refused.append((entry.key, .notASource))
                        continue
                    }
                    objects.append(BucketObject(name: name, key: entry.key, size: entry.size, etag: etag))
                }
            }
            token = page.nextContinuationToken
            if let next = token {
                guard next.utf8.count <= Self.maxTokenBytes, tokensSeen.insert(next).inserted else {
                    throw S3Error.malformedResponse("the listing's continuation token repeats or is over \(Self.maxTokenBytes) bytes")
                }
            }
        } while token != nil
        logRefused(refused)
        return objects.sorted { $0.name < $1.name }
    }

    /// Says which keys are not sources, when that changes: a hostile or odd key is visible, not silently lost.
    private func logRefused(_ refused: [(key: String, why: BucketObjectName.Refusal)]) {
        let changed = refusedLogged.withLock { logged in
            defer { logged = refused.count }
            return logged != refused.count
        }
        guard changed, !refused.isEmpty else { return }
        let shown = refused.prefix(5).map { "'\(Self.printable($0.key))' (\($0.why.rawValue))" }
        Log.info("\(location): \(refused.count) keys are not sources and are left alone: " + shown.joined(separator: ", ")
                 + (refused.count > 5 ? ", ..." : ""))
    }

    /// A key as a log line may show it: control characters as `?`, at most 120 characters.
    static func printable(_ key: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in key.unicodeScalars.prefix(120) {
            scalars.append(scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) ? "?" : scalar)
        }
        return String(scalars)
    }
}

/// What an images bucket was asked since start: listing pages, and the downloads of builds (a download is one
/// ranged GET per 8 MiB of its object).
struct BucketRequestCounts: Sendable {
    var listRequests = 0
    var downloads = 0
    var downloadFailures = 0
    /// Ranged GETs of sources served from their own levels (`BucketObjectRanges`), their bytes, and those that failed.
    var rangeRequests = 0
    var rangeBytes = 0
    var rangeFailures = 0
}

/// One source object as a listing shows it.
struct BucketObject: Sendable, Equatable {
    let name: String
    let key: String
    /// From the listing: not negative (the parser checks), bounded by `maxObjectBytes` before a download.
    let size: Int
    /// Printable and bounded (`BucketObjectName.isUsable`).
    let etag: String

    var version: String { SourceFingerprint.object(size: size, etag: etag).value }
}
