import Foundation
import ObjectStore

/// Where `--store s3://bucket/prefix` puts pyramids: the bucket's settings and the key prefix.
///
/// The endpoint, region and addressing style come from the URL's query (`?endpoint=http://host:port&region=...
/// &path-style=true|false`) or else from their own settings (`--store-endpoint`, `--store-region`,
/// `--store-path-style`); the credentials only from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
/// `AWS_SESSION_TOKEN`, never from a command line (`ps` shows it) nor the URL.
struct StoreLocation: Sendable {
    let settings: S3Settings
    /// Keys begin with this (no leading or trailing slash; empty for the bucket's root).
    let prefix: String

    /// The key of `relative` (`pyramids/{id}/{version}/...`) under the prefix.
    func key(_ relative: String) -> String { prefix.isEmpty ? relative : prefix + "/" + relative }

    /// One exchange with the store, once connected (an upload's PUT of a preview included).
    static let requestTimeoutSeconds = 10.0
    /// Largest object fetched: a bound on what one answer may put in memory.
    static let maxObjectBytes = 64 << 20

    /// Longest prefix accepted: keys are 1,024 bytes at most, and a tile's path below it needs room.
    static let maxPrefixBytes = 512

    /// Whether a `--store` value names an object store rather than nothing (the data folder).
    static func isObjectStore(_ value: String) -> Bool { value.hasPrefix("s3://") }

    /// Parses `s3://bucket[/prefix][?endpoint=...&region=...&path-style=...]`. Throws a `UsageError` that never
    /// repeats the credentials (they are not in the URL: user info is refused).
    init(url: String, endpoint: String, region: String, pathStyle: Bool, environment: [String: String]) throws {
        guard Self.isObjectStore(url), let parts = URLComponents(string: url), let bucket = parts.host, !bucket.isEmpty else {
            throw UsageError("store must be s3://bucket[/prefix], not '\(url.prefix(200))'")
        }
        guard parts.user == nil, parts.password == nil else {
            throw UsageError("store must not hold credentials: give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let prefix = parts.path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        guard prefix.utf8.count <= Self.maxPrefixBytes,
              !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw UsageError("store prefix must be at most \(Self.maxPrefixBytes) bytes without . or .. segments")
        }
        var endpoint = endpoint, region = region, pathStyle = pathStyle
        for item in parts.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "endpoint": endpoint = value
            case "region": region = value
            case "path-style":
                guard let flag = Bool(value) else { throw UsageError("store's path-style must be true or false, not '\(value.prefix(40))'") }
                pathStyle = flag
            default: throw UsageError("store's query may hold endpoint, region and path-style, not '\(item.name.prefix(40))'")
            }
        }
        if endpoint.isEmpty { endpoint = "https://s3.\(region).amazonaws.com" }
        guard let credentials = SigV4Credentials.fromEnvironment(environment) else {
            throw UsageError("--store s3:// needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment")
        }
        // A fetch holds one of the server's worker threads while it waits: a store that accepts connections and
        // then hangs must let go sooner than the client's 30 s default (3 sends × (2 s connect + 10 s) at worst).
        // Pyramid files are tiles, previews and descriptors: none comes near 64 MiB.
        var http = HTTPClientSettings()
        http.requestTimeout = Self.requestTimeoutSeconds
        http.maxBodyBytes = Self.maxObjectBytes
        var settings: S3Settings
        do {
            settings = try S3Settings(endpoint: endpoint, region: region, bucket: bucket,
                                      addressing: pathStyle ? .path : .virtualHost, credentials: credentials, http: http)
        } catch {
            throw UsageError("store: \(error)")
        }
        settings.signPayloads = Self.signsPayloads(settings)
        self.settings = settings
        self.prefix = prefix
    }

    /// Whether PUT bodies are hashed into their signatures. A signed payload lets the store check that the body
    /// arrived as it was signed; the headers (key, date, credentials) are signed either way. Over TLS the channel
    /// already guarantees the body's integrity, and over loopback no network lies between: there
    /// `UNSIGNED-PAYLOAD` (which S3 accepts for every PUT, signature still checked) saves a SHA-256 pass over every
    /// byte of every tile a build publishes, on the cores the build needs. Anywhere else the bodies are signed.
    static func signsPayloads(_ settings: S3Settings) -> Bool {
        !(settings.useTLS || isLoopback(settings.endpointHost))
    }

    /// `localhost`, `::1` or 127.0.0.0/8: the store runs on this machine.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
