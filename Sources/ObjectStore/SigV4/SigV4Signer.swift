/// AWS Signature Version 4, written from the specification ("Create a signed AWS API request", and
/// S3's "Authenticating Requests (AWS Signature Version 4)"): canonical request, string to sign,
/// signing key, then the `Authorization` header or a presigned URL's query.
///
/// Each step is public so the published test vectors can check it on its own.
public struct SigV4Signer: Sendable {
    /// How the path enters the canonical request.
    public enum PathRules: Sendable {
        /// S3: the path as it is (no dot-segment or `//` removal: keys may hold them), URI-encoded once.
        case s3
        /// Every other service: dot segments and empty segments removed, then URI-encoded (a path that
        /// already holds %XX escapes is so encoded twice, as the specification says).
        case generic
    }

    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The payload hash S3 accepts in place of the body's, for bodies not worth hashing (or streamed).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// SHA-256 of nothing: the payload hash of a request without a body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// A presigned URL lives at most seven days (S3's limit).
    public static let maxPresignSeconds = 604_800

    public let credentials: SigV4Credentials
    public let region: String
    public let service: String
    public let pathRules: PathRules

    public init(credentials: SigV4Credentials, region: String, service: String = "s3", pathRules: PathRules = .s3) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.pathRules = pathRules
    }

    // MARK: Task 1: the canonical request

    public func canonicalURI(_ path: String) -> String {
        let path = path.isEmpty ? "/" : path
        switch pathRules {
        case .s3: return SigV4Encoding.uriEncode(path, keepSlash: true)
        case .generic: return SigV4Encoding.uriEncode(SigV4Encoding.normalizePath(path), keepSlash: true)
        }
    }

    /// Names and values encoded, sorted by name then value (byte order), joined `a=1&b=2`.
    public func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.map { (SigV4Encoding.uriEncode($0.name), SigV4Encoding.uriEncode($0.value)) }
            .sorted { $0.0 != $1.0 ? Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8))
                                   : Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// `name:value\n` lines (names lowercased and sorted, values trimmed with inner runs of white space
    /// made one space, a repeated name's values joined by commas in their order) and the signed
    /// headers list `a;b;c`. Every header given is signed.
    public func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (lines: String, signed: String) {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for header in headers {
            let name = header.name.lowercased()
            let value = header.value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
                .joined(separator: " ")
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(value)
        }
        let names = order.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let lines = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (lines, names.joined(separator: ";"))
    }

    public func canonicalRequest(_ request: SigV4Request) -> String {
        let headers = canonicalHeaders(request.headers)
        return [request.method, canonicalURI(request.path), canonicalQuery(request.query),
                headers.lines, headers.signed, request.payloadHash].joined(separator: "\n")
    }

    // MARK: Task 2: the string to sign

    /// `20150830/us-east-1/service/aws4_request`.
    public func scope(_ timestamp: SigV4Timestamp) -> String {
        "\(timestamp.day)/\(region)/\(service)/aws4_request"
    }

    public func stringToSign(canonicalRequest: String, timestamp: SigV4Timestamp) -> String {
        [Self.algorithm, timestamp.amzDate, scope(timestamp), SHA256.hexHash(Array(canonicalRequest.utf8))]
            .joined(separator: "\n")
    }

    // MARK: Task 3: the signature

    /// HMAC chain: secret -> day -> region -> service -> "aws4_request".
    public func signingKey(day: String) -> [UInt8] {
        let dateKey = SHA256.hmac(key: Array("AWS4\(credentials.secretAccessKey)".utf8), Array(day.utf8))
        let regionKey = SHA256.hmac(key: dateKey, Array(region.utf8))
        let serviceKey = SHA256.hmac(key: regionKey, Array(service.utf8))
        return SHA256.hmac(key: serviceKey, Array("aws4_request".utf8))
    }

    public func signature(stringToSign: String, timestamp: SigV4Timestamp) -> String {
        Hex.encode(SHA256.hmac(key: signingKey(day: timestamp.day), Array(stringToSign.utf8)))
    }

    // MARK: Task 4: adding it to the request

    /// Signs `request` in place: sets `X-Amz-Date`, `X-Amz-Security-Token` (with a session token: signed,
    /// as S3 requires) and, for S3, `x-amz-content-sha256` (its payload hash), then adds `Authorization`.
    /// Every other header present is signed too: add headers before signing, never after.
    public func sign(_ request: inout SigV4Request, at timestamp: SigV4Timestamp) {
        request.setHeader("X-Amz-Date", timestamp.amzDate)
        if let token = credentials.sessionToken { request.setHeader("X-Amz-Security-Token", token) }
        if service == "s3" { request.setHeader("x-amz-content-sha256", request.payloadHash) }
        request.headers.removeAll { $0.name.lowercased() == "authorization" }
        request.headers.append(("Authorization", authorization(for: request, at: timestamp)))
    }

    /// The `Authorization` value for a request that already carries every header to sign.
    public func authorization(for request: SigV4Request, at timestamp: SigV4Timestamp) -> String {
        let canonical = canonicalRequest(request)
        let signed = canonicalHeaders(request.headers).signed
        let signature = signature(stringToSign: stringToSign(canonicalRequest: canonical, timestamp: timestamp), timestamp: timestamp)
        return "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(timestamp)), SignedHeaders=\(signed), Signature=\(signature)"
    }

    // MARK: Query-string authentication (presigned URLs)

    /// The query of a presigned URL for `method` on `path` at `host` (for a CDN or a browser to fetch
    /// without credentials): the request's own `query` plus the `X-Amz-*` parameters and the signature,
    /// encoded, in canonical order. Only `host` is signed and the payload is `UNSIGNED-PAYLOAD`.
    /// `expires` is clamped to 1...604800 seconds.
    public func presignedQuery(method: String, path: String, query: [(name: String, value: String)] = [],
                               host: String, expires: Int, at timestamp: SigV4Timestamp) -> String {
        var parameters = query
        parameters.append(("X-Amz-Algorithm", Self.algorithm))
        parameters.append(("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(timestamp))"))
        parameters.append(("X-Amz-Date", timestamp.amzDate))
        parameters.append(("X-Amz-Expires", String(min(max(expires, 1), Self.maxPresignSeconds))))
        if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token)) }
        parameters.append(("X-Amz-SignedHeaders", "host"))
        let request = SigV4Request(method: method, path: path, query: parameters, headers: [("host", host)],
                                   payloadHash: Self.unsignedPayload)
        let signature = signature(stringToSign: stringToSign(canonicalRequest: canonicalRequest(request), timestamp: timestamp),
                                  timestamp: timestamp)
        return canonicalQuery(parameters) + "&X-Amz-Signature=" + signature
    }
}
