import Foundation
import TestSupport
@testable import Tilescope

/// A real Tilescope server on an ephemeral loopback port, over a temporary images folder.
final class TestServer: @unchecked Sendable {
    let images: String
    let data: String
    let service: TilescopeService
    var port: Int { service.server.port }

    init(label: String, configure: (inout ServeConfig) -> Void = { _ in }, populate: (String) throws -> Void) throws {
        let root = try TestImages.folder(label)
        images = root + "/images"
        data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        try populate(images)
        var config = ServeConfig()
        config.host = "127.0.0.1"
        config.port = 0
        config.imagesFolder = images
        config.dataFolder = data
        config.publicFolder = TestServer.repositoryRoot + "/Public"
        config.pollThreads = 2
        config.workerThreads = 2
        config.rescanSeconds = 1
        // Files are written just before the server starts: no waiting for them to settle
        // (IngestionTests sets its own interval to test settling).
        config.settleSeconds = 0
        config.quiet = true
        configure(&config)
        Log.quiet = true
        service = try TilescopeService(config)
        try service.start()
        try waitForFirstScan()
    }

    /// A first start answers before its first scan is done (docs/gallery-scale.md); the tests built on
    /// this server read the folder's images from their first request, so they start once it is done.
    func waitForFirstScan(timeout: Double = 120) throws {
        let end = Date().addingTimeInterval(timeout)
        while service.sync.fullScansCompleted == 0 {
            guard Date() < end else { throw TestFailure("first scan not done after \(timeout) s") }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    deinit { service.stop() }

    /// Waits until every image has left the building state.
    func waitUntilBuilt(timeout: Double = 120) throws {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if service.library.all.allSatisfy({ $0.status.name != "building" }) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("images still building after \(timeout) s")
    }

    /// The source version the API gives for `id`, nil when it gives none.
    func version(of id: String) -> String? {
        (try? get("/api/images/\(id)").json?["version"]) as? String
    }

    /// Waits until `id`'s version is no longer `old` (a replaced source noticed), up to `timeout`;
    /// returns the version then (still `old` when nothing changed).
    func waitForVersion(of id: String, otherThan old: String, timeout: Double = 30) -> String {
        let end = Date().addingTimeInterval(timeout)
        var current = old
        while current == old && Date() < end {
            Thread.sleep(forTimeInterval: 0.1)
            current = version(of: id) ?? old
        }
        return current
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> RawHTTP.Reply {
        try RawHTTP.get(port, path, headers: headers)
    }

    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.path + "/Package.swift") { return url.path }
        }
        return FileManager.default.currentDirectoryPath
    }()
}
