/// What HEAD (and GET) tell about an object.
public struct S3ObjectInfo: Sendable, Equatable {
    /// Bytes of the whole object (for a range GET, from Content-Range).
    public let size: Int
    /// The ETag as the store gives it, quotes included.
    public let etag: String?
    public let lastModified: String?
    public let contentType: String?
}

/// An object's bytes (all of them, or the range asked for) and what the answer said about it.
public struct S3Object: Sendable {
    public let body: [UInt8]
    public let info: S3ObjectInfo
    /// The bytes of the object `body` holds (`first...last`), for a range GET answered 206.
    public let range: ClosedRange<Int>?
}

/// The outcome of a PUT.
public enum S3PutResult: Sendable, Equatable {
    /// Written; the object's new ETag.
    case stored(etag: String?)
    /// Not written: the PUT was conditional (`If-None-Match: *`) and the key already exists (412).
    case alreadyExists
}

/// One object of a listing.
public struct S3ListedObject: Sendable, Equatable {
    public let key: String
    public let size: Int
    public let etag: String?
    public let lastModified: String?
}

/// One page of ListObjectsV2.
public struct S3ListPage: Sendable {
    public let objects: [S3ListedObject]
    /// With a delimiter: the key prefixes up to it, each once.
    public let commonPrefixes: [String]
    /// The token of the next page; nil on the last page.
    public let nextContinuationToken: String?

    /// From the `<ListBucketResult>` XML of ListObjectsV2.
    init(xml: [UInt8]) throws {
        let root: XMLNode
        do { root = try XMLDocumentParser.parse(xml) } catch { throw S3Error.malformedResponse("listing: \(error)") }
        guard root.name == "ListBucketResult" else { throw S3Error.malformedResponse("listing: root is \(root.name)") }
        objects = try root.children("Contents").map { entry in
            guard let key = entry.text(of: "Key"), let size = Int(entry.text(of: "Size") ?? ""), size >= 0 else {
                throw S3Error.malformedResponse("listing: an entry without key or size")
            }
            return S3ListedObject(key: key, size: size, etag: entry.text(of: "ETag"), lastModified: entry.text(of: "LastModified"))
        }
        commonPrefixes = root.children("CommonPrefixes").compactMap { $0.text(of: "Prefix") }
        let truncated = root.text(of: "IsTruncated") == "true"
        let token = root.text(of: "NextContinuationToken").flatMap { $0.isEmpty ? nil : $0 }
        guard !truncated || token != nil else { throw S3Error.malformedResponse("listing: truncated without a continuation token") }
        nextContinuationToken = truncated ? token : nil
    }
}
