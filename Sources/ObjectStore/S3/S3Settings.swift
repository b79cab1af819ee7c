/// Where a bucket is and how to reach it: endpoint, region, bucket, addressing style, credentials
/// and the HTTP client's limits.
public struct S3Settings: Sendable {
    /// How the bucket appears in a request.
    public enum Addressing: Sendable {
        /// `http://endpoint/bucket/key`: what SeaweedFS, MinIO and most S3-compatible stores expect.
        case path
        /// `http://bucket.endpoint/key`: AWS's default.
        case virtualHost
    }

    public var endpointHost: String
    public var endpointPort: Int
    public var region: String
    public var bucket: String
    public var addressing: Addressing
    public var credentials: SigV4Credentials
    public var http: HTTPClientSettings
    /// Hash PUT bodies into the signature (the store then checks the body arrived whole); false sends
    /// `UNSIGNED-PAYLOAD`, which saves hashing large bodies.
    public var signPayloads = true
    /// Retries of calls that failed in a way retrying may cure (`S3RetryPolicy`).
    public var retries = S3RetryPolicy()

    /// https: TLS, the store's certificate checked (against `certificateAuthorities` or the system's).
    public var useTLS: Bool
    /// A PEM file of the certificate authorities to trust for https; nil: the system's.
    public var certificateAuthorities: String?

    /// `endpoint` is `http://host[:port]` or `https://host[:port]` (no path).
    public init(endpoint: String, region: String, bucket: String, addressing: Addressing = .path,
                credentials: SigV4Credentials, http: HTTPClientSettings = HTTPClientSettings(),
                certificateAuthorities: String? = nil) throws {
        let scheme: String
        if endpoint.hasPrefix("http://") { scheme = "http://" } else if endpoint.hasPrefix("https://") { scheme = "https://" } else {
            throw S3Error.invalidArgument("endpoint must be http://host[:port] or https://host[:port]")
        }
        useTLS = scheme == "https://"
        self.certificateAuthorities = certificateAuthorities
        var authority = String(endpoint.dropFirst(scheme.count))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@") else {
            throw S3Error.invalidArgument("endpoint must be \(scheme)host[:port] without a path")
        }
        var host = authority
        var port = useTLS ? 443 : 80
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw S3Error.invalidArgument("endpoint port is not a port number")
            }
            host = String(authority[..<colon])
            port = parsed
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard Self.isValidBucketName(bucket) else {
            throw S3Error.invalidArgument("bucket names are 3-63 lowercase letters, digits, dots and hyphens")
        }
        // It is signed into every request's scope and written into CreateBucket's XML: letters, digits, hyphens.
        guard (1...64).contains(region.utf8.count),
              region.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }) else {
            throw S3Error.invalidArgument("regions are lowercase letters, digits and hyphens")
        }
        endpointHost = host
        endpointPort = port
        self.region = region
        self.bucket = bucket
        self.addressing = addressing
        self.credentials = credentials
        self.http = http
    }

    /// The `Host` header: the endpoint's (with the bucket in front for virtual-host addressing), with the
    /// port unless it is the scheme's (80, 443).
    public var hostHeader: String {
        let host = endpointHost.contains(":") ? "[\(endpointHost)]" : endpointHost
        let name = addressing == .virtualHost ? "\(bucket).\(host)" : host
        return endpointPort == (useTLS ? 443 : 80) ? name : "\(name):\(endpointPort)"
    }

    /// `http://` or `https://`.
    public var scheme: String { useTLS ? "https://" : "http://" }

    /// The path of `key` before encoding (`/bucket/key` or `/key`); of the bucket itself when nil.
    public func path(of key: String?) -> String {
        let bucketPath = addressing == .path ? "/\(bucket)" : ""
        guard let key else { return bucketPath.isEmpty ? "/" : bucketPath }
        return "\(bucketPath)/\(key)"
    }

    static func isValidBucketName(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count)
            && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 }
            && name.first != "." && name.first != "-" && name.last != "." && name.last != "-"
    }
}
