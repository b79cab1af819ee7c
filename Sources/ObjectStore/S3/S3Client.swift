import Foundation

/// The S3 calls an object store needs, on one bucket: GET (whole or a range), HEAD, PUT (optionally
/// only if the key is new), DELETE, ListObjectsV2, bucket create/delete, presigned URLs. Every request
/// is signed with SigV4 and sent on the pooled keep-alive connections of one `HTTPClient`; every
/// failure is an `S3Error`. Calls block their thread (the server runs them on its worker pool) and
/// may be made from many threads at once.
public final class S3Client: Sendable {
    public let settings: S3Settings
    private let http: HTTPClient
    private let signer: SigV4Signer
    /// Largest key S3 accepts, in UTF-8 bytes.
    public static let maxKeyBytes = 1024

    /// Throws only when TLS cannot be set up (the certificate authorities file cannot be read).
    public init(settings: S3Settings) throws {
        self.settings = settings
        let connectHost = settings.addressing == .virtualHost ? "\(settings.bucket).\(settings.endpointHost)" : settings.endpointHost
        do {
            http = try HTTPClient(host: connectHost, port: settings.endpointPort, settings: settings.http,
                                  useTLS: settings.useTLS, certificateAuthorities: settings.certificateAuthorities)
        } catch let error as HTTPClientError {
            throw S3Error.invalidArgument("\(error)")
        }
        signer = SigV4Signer(credentials: settings.credentials, region: settings.region, service: "s3", pathRules: .s3)
    }

    // MARK: Objects

    /// The object's bytes, or those of `range` (inclusive byte offsets, as HTTP's Range header).
    public func getObject(_ key: String, range: ClosedRange<Int>? = nil) throws -> S3Object {
        var headers: [(name: String, value: String)] = []
        if let range {
            guard range.lowerBound >= 0 else { throw S3Error.invalidArgument("a negative range") }
            headers.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound)"))
        }
        let response = try perform("GET", key: key, headers: headers)
        guard response.status == 200 || response.status == 206 else { throw S3Error.from(response) }
        var info = try Self.info(of: response, bodySize: response.body.count)
        var served: ClosedRange<Int>?
        if response.status == 206 {
            guard let contentRange = response.header("content-range"), let parsed = Self.parseContentRange(contentRange),
                  parsed.range.count == response.body.count else {
                throw S3Error.malformedResponse("206 without a Content-Range matching its body")
            }
            served = parsed.range
            info = S3ObjectInfo(size: parsed.total ?? info.size, etag: info.etag, lastModified: info.lastModified, contentType: info.contentType)
        }
        return S3Object(body: response.body, info: info, range: served)
    }

    public func headObject(_ key: String) throws -> S3ObjectInfo {
        let response = try perform("HEAD", key: key)
        guard response.status == 200 else { throw S3Error.from(response) }
        return try Self.info(of: response)
    }

    /// Writes `body` under `key`. `ifNoneMatch`: only if no object has that key (`If-None-Match: *`),
    /// `.alreadyExists` otherwise (412): of several such PUTs to one new key, one wins on a store that
    /// honours it (S3, SeaweedFS: docs/object-storage.md).
    public func putObject(_ key: String, body: [UInt8], contentType: String? = nil, ifNoneMatch: Bool = false) throws -> S3PutResult {
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        if ifNoneMatch { headers.append(("If-None-Match", "*")) }
        let payloadHash = settings.signPayloads ? SHA256.hexHash(body) : SigV4Signer.unsignedPayload
        let response = try perform("PUT", key: key, headers: headers, body: body, payloadHash: payloadHash)
        if ifNoneMatch && response.status == 412 { return .alreadyExists }
        guard (200..<300).contains(response.status) else { throw S3Error.from(response) }
        return .stored(etag: response.header("etag"))
    }

    /// Removes `key` (S3 answers 204 whether it existed or not).
    public func deleteObject(_ key: String) throws {
        let response = try perform("DELETE", key: key)
        guard (200..<300).contains(response.status) else { throw S3Error.from(response) }
    }

    /// One page of ListObjectsV2: keys after `startAfter`, or from `continuationToken` (a previous page's
    /// `nextContinuationToken`), beginning with `prefix`, at most `maxKeys` (S3's own limit: 1000).
    public func listObjects(prefix: String? = nil, delimiter: String? = nil, startAfter: String? = nil,
                            continuationToken: String? = nil, maxKeys: Int? = nil) throws -> S3ListPage {
        var query: [(name: String, value: String)] = [("list-type", "2")]
        if let prefix { query.append(("prefix", prefix)) }
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let startAfter { query.append(("start-after", startAfter)) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        if let maxKeys { query.append(("max-keys", String(min(max(maxKeys, 1), 1000)))) }
        let response = try perform("GET", key: nil, query: query)
        guard response.status == 200 else { throw S3Error.from(response) }
        return try S3ListPage(xml: response.body)
    }

    // MARK: The bucket

    /// Creates the bucket (in the settings' region); no error if this identity already owns it.
    public func createBucket() throws {
        var body: [UInt8] = []
        if settings.region != "us-east-1" {
            body = Array("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(settings.region)</LocationConstraint></CreateBucketConfiguration>".utf8)
        }
        let response = try perform("PUT", key: nil, body: body, payloadHash: SHA256.hexHash(body))
        if (200..<300).contains(response.status) { return }
        let error = S3Error.from(response)
        if error.code == "BucketAlreadyOwnedByYou" { return }
        throw error
    }

    /// Deletes the bucket (it must be empty).
    public func deleteBucket() throws {
        let response = try perform("DELETE", key: nil)
        guard (200..<300).contains(response.status) else { throw S3Error.from(response) }
    }

    // MARK: Presigned URLs

    /// A URL anyone may GET (or `method`) `key` with until `expires` seconds from `date` (at most 7 days):
    /// for redirecting a client or a CDN to the store without handing out credentials.
    public func presignedURL(_ key: String, method: String = "GET", expires: Int, at date: Date = Date()) throws -> String {
        try Self.checkKey(key)
        let path = settings.path(of: key)
        let query = signer.presignedQuery(method: method, path: path, host: settings.hostHeader, expires: expires,
                                          at: SigV4Timestamp(date))
        return "\(settings.scheme)\(settings.hostHeader)\(SigV4Encoding.uriEncode(path, keepSlash: true))?\(query)"
    }

    // MARK: Sending

    /// Signs and sends one request, again (signed anew) while it fails in a way retrying may cure and
    /// the retry policy allows; the last answer whatever its status. Transport failures become `S3Error`s.
    func perform(_ method: String, key: String?, query: [(name: String, value: String)] = [],
                 headers: [(name: String, value: String)] = [], body: [UInt8] = [], bodyFile: HTTPFileBody? = nil,
                 payloadHash: String = SigV4Signer.emptyPayloadHash) throws -> HTTPClientResponse {
        if let key { try Self.checkKey(key) }
        let conditional = headers.contains { $0.name.lowercased() == "if-none-match" || $0.name.lowercased() == "if-match" }
        let attempts = conditional ? 1 : settings.retries.maxAttempts
        var attempt = 1
        while true {
            do {
                let response = try send(method, key: key, query: query, headers: headers, body: body, bodyFile: bodyFile,
                                        payloadHash: payloadHash)
                if attempt < attempts && (response.status >= 500 || response.status == 429) && S3Error.from(response).isRetryable {
                    attempt += 1
                    Thread.sleep(forTimeInterval: settings.retries.delay(beforeAttempt: attempt))
                    continue
                }
                return response
            } catch let error as S3Error where error.isRetryable && attempt < attempts {
                attempt += 1
                Thread.sleep(forTimeInterval: settings.retries.delay(beforeAttempt: attempt))
            }
        }
    }

    /// One signed exchange.
    private func send(_ method: String, key: String?, query: [(name: String, value: String)],
                      headers: [(name: String, value: String)], body: [UInt8], bodyFile: HTTPFileBody?,
                      payloadHash: String) throws -> HTTPClientResponse {
        let path = settings.path(of: key)
        var request = SigV4Request(method: method, path: path, query: query,
                                   headers: [("Host", settings.hostHeader)] + headers, payloadHash: payloadHash)
        signer.sign(&request, at: SigV4Timestamp(Date()))
        let encodedQuery = signer.canonicalQuery(query)
        let target = SigV4Encoding.uriEncode(path, keepSlash: true) + (encodedQuery.isEmpty ? "" : "?" + encodedQuery)
        do {
            return try http.send(HTTPClientRequest(method: method, target: target, headers: request.headers, body: body,
                                                   bodyFile: bodyFile))
        } catch let error as HTTPClientError {
            switch error {
            case .malformedResponse(let why): throw S3Error.malformedResponse(why)
            case .responseTooLarge(let limit): throw S3Error.malformedResponse("an answer larger than \(limit) bytes")
            case .invalidRequest(let why): throw S3Error.invalidArgument(why)
            default: throw S3Error.transport(error)
            }
        }
    }

    static func checkKey(_ key: String) throws {
        guard !key.isEmpty, key.utf8.count <= maxKeyBytes else {
            throw S3Error.invalidArgument("keys are 1 to \(maxKeyBytes) bytes")
        }
    }

    /// `bodySize`: a GET's body, whose length stands for a missing Content-Length (a chunked answer).
    static func info(of response: HTTPClientResponse, bodySize: Int? = nil) throws -> S3ObjectInfo {
        guard let size = response.header("content-length").flatMap({ Int($0) }) ?? bodySize, size >= 0 else {
            throw S3Error.malformedResponse("no Content-Length")
        }
        return S3ObjectInfo(size: size, etag: response.header("etag"), lastModified: response.header("last-modified"),
                            contentType: response.header("content-type"))
    }

    /// `bytes 0-9/443` -> (0...9, 443); the total may be `*`.
    static func parseContentRange(_ value: String) -> (range: ClosedRange<Int>, total: Int?)? {
        guard value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first else { return nil }
        let total = parts[1] == "*" ? nil : Int(parts[1])
        if parts[1] != "*" && total == nil { return nil }
        return (first...last, total)
    }
}
