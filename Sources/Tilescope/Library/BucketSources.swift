import Catalog
import Foundation
import ObjectStore
import Synchronization

/// An images bucket (`--images s3://bucket/prefix`): its objects are the sources, as a folder's files are.
///
/// A rescan lists the prefix with ListObjectsV2, 1,000 keys a page, and nothing else: no HEAD, no GET. The
/// listing gives each object's size and ETag, which make its fingerprint (`SourceFingerprint.object`), so a
/// new, changed or removed object is noticed from the listing alone. A source's bytes are read only when it is
/// built (`SourceDownload`), and uploads are written here.
///
/// What a pass costs (`BucketListing`): a bucket that fits one page is listed whole at every pass (one request
/// either way). A larger one is listed whole every `wholeListingSeconds`; the passes in between ask only for keys
/// after the greatest one known (`start-after`: S3 lists in key order), one request when nothing was added, so
/// objects added under names that sort last (a camera's or a scanner's counters, dates) are seen at the next
/// pass, and any other change (a replaced or removed object, a name that sorts earlier) at the next whole listing.
/// This server's own uploads and deletions make the next pass whole. S3-compatible stores share no change feed.
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
    /// What the last listings found, and when the next one must be whole.
    private let listing: Mutex<BucketListing>

    init(client: S3Client, prefix: String, location: String, maxObjectBytes: Int, pageSize: Int = BucketSources.pageSize,
         wholeListingSeconds: Int = BucketListing.defaultWholeSeconds) {
        self.client = client
        self.prefix = prefix
        self.location = location
        self.maxObjectBytes = maxObjectBytes
        self.pageSize = min(max(pageSize, 1), Self.pageSize)
        listing = Mutex(BucketListing(wholeEvery: .seconds(max(0, wholeListingSeconds))))
    }

    /// From `--images s3://...`, with the same endpoint, region and path-style rules as `--store`.
    convenience init(url: String, endpoint: String, region: String, pathStyle: Bool, environment: [String: String],
                     maxObjectBytes: Int, wholeListingSeconds: Int = BucketListing.defaultWholeSeconds) throws {
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
        self.init(client: client, prefix: parsed.prefix, location: shown, maxObjectBytes: maxObjectBytes,
                  wholeListingSeconds: wholeListingSeconds)
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
    /// never taken for a bucket that lost objects). Between whole listings of a bucket of several pages, those
    /// known plus those after the last key (`BucketListing`).
    func list() throws -> [BucketObject] {
        do {
            let now = ContinuousClock.now
            let objects: [BucketObject]
            if let after = listing.withLock({ $0.keyToListAfter(at: now) }) {
                let added = try listAll(after: after)
                objects = listing.withLock { $0.took(added: added.objects, lastKey: added.lastKey) }
            } else {
                let whole = try listAll(after: nil)
                listing.withLock { $0.tookWhole(whole.objects, lastKey: whole.lastKey, pages: whole.pages, at: now) }
                objects = whole.objects
            }
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
            listing.withLock { $0.listWholeNext() }
            throw error
        }
    }

    /// Makes the next pass list the bucket whole: after this server wrote or deleted a source, whose key may sort
    /// anywhere.
    func listWholeNext() {
        listing.withLock { $0.listWholeNext() }
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

    /// The source objects under the prefix (after `after`, when given), sorted by name, the greatest key listed
    /// (sources or not, in S3's order: bytes of UTF-8), and the pages asked for.
    private func listAll(after: String?) throws -> (objects: [BucketObject], lastKey: String?, pages: Int) {
        var objects: [BucketObject] = []
        var refused: [(key: String, why: BucketObjectName.Refusal)] = []
        var token: String?
        var tokensSeen: Set<String> = []
        var listed = 0, pages = 0
        var lastKey = after
        repeat {
            counts.withLock { $0.listRequests += 1 }
            pages += 1
            let page = try client.listObjects(prefix: prefix.isEmpty ? nil : prefix + "/",
                                              startAfter: token == nil ? after : nil, continuationToken: token,
                                              maxKeys: pageSize)
            listed += page.objects.count
            for entry in page.objects where lastKey.map({ BucketListing.sortsAfter(entry.key, $0) }) ?? true {
                lastKey = entry.key
            }
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
        logRefused(refused, whole: after == nil)
        return (objects.sorted { $0.name < $1.name }, lastKey, pages)
    }

    /// Says which keys are not sources, when that changes: a hostile or odd key is visible, not silently lost.
    /// A listing of what was added says each refused key once (the next one starts after it).
    private func logRefused(_ refused: [(key: String, why: BucketObjectName.Refusal)], whole: Bool) {
        let changed = refusedLogged.withLock { logged in
            guard whole else {
                logged += refused.count
                return true
            }
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
