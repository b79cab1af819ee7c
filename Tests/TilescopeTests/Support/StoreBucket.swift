import Foundation
import ObjectStore
import TestSupport

/// A bucket on a real SeaweedFS, made for one test: its client, the environment a `tilescope serve` on it needs
/// (the credentials, never on its command line) and its `--store` arguments.
struct StoreBucket {
    let seaweed: SeaweedServer
    let name: String
    let client: S3Client
    var environment: [String: String] { ["AWS_ACCESS_KEY_ID": seaweed.accessKey, "AWS_SECRET_ACCESS_KEY": seaweed.secretKey] }

    init(_ seaweed: SeaweedServer, _ name: String) throws {
        self.seaweed = seaweed
        self.name = name
        let credentials = SigV4Credentials(accessKeyID: seaweed.accessKey, secretAccessKey: seaweed.secretKey)
        client = try S3Client(settings: S3Settings(endpoint: seaweed.endpoint, region: seaweed.region, bucket: name,
                                                   credentials: credentials))
        try client.createBucket()
    }

    /// `--store s3://{bucket}/{prefix}` on this server.
    func store(_ prefix: String) -> [String] {
        ["--store", "s3://\(name)/\(prefix)?endpoint=\(seaweed.endpoint)&region=\(seaweed.region)"]
    }

    /// A scratch folder for the test with an empty `images` folder in it: (root, images).
    static func folders(_ name: String) throws -> (root: String, images: String) {
        let root = try TestScratch.folder(name)
        try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        return (root, root + "/images")
    }
}
