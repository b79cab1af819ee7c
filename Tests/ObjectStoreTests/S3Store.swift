import ObjectStore
import TestSupport

/// Clients of the test SeaweedFS, each test on a bucket of its own.
enum S3Store {
    /// A client of a new, empty bucket on the shared server (`create`: made first).
    static func freshClient(create: Bool = true, secret: String? = nil, http: HTTPClientSettings = HTTPClientSettings()) throws -> S3Client {
        let server = try SeaweedServer.shared()
        let client = try client(of: server, bucket: "t-\(UInt64.random(in: 0...UInt64.max))", secret: secret, http: http)
        if create { try client.createBucket() }
        return client
    }

    static func client(of server: SeaweedServer, bucket: String, secret: String? = nil,
                       http: HTTPClientSettings = HTTPClientSettings()) throws -> S3Client {
        let credentials = SigV4Credentials(accessKeyID: server.accessKey, secretAccessKey: secret ?? server.secretKey)
        return try S3Client(settings: try S3Settings(endpoint: server.endpoint, region: server.region, bucket: bucket,
                                                 addressing: .path, credentials: credentials, http: http))
    }

    /// Bytes of every value, in a seeded order, `count` long.
    static func binary(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E3779B97F4A7C15
        return (0..<count).map { index in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return index < 256 ? UInt8(index) : UInt8(truncatingIfNeeded: state >> 33)
        }
    }
}

extension S3Store {
    /// A client of the shared server's TLS gateway, trusting `certificateAuthorities` (default: the test authority).
    static func tlsClient(bucket: String, certificateAuthorities: String? = nil) throws -> S3Client {
        let server = try SeaweedServer.shared()
        return try S3Client(settings: try S3Settings(
            endpoint: server.tlsEndpoint, region: server.region, bucket: bucket,
            credentials: SigV4Credentials(accessKeyID: server.accessKey, secretAccessKey: server.secretKey),
            certificateAuthorities: certificateAuthorities ?? server.certificateAuthority))
    }
}
