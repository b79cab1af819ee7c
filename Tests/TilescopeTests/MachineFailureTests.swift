import Catalog
import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// A build that fails for the machine's reasons (here a real full disk: a tiny tmpfs as the data
/// folder) is not remembered as the file's failure, and is built again once the machine recovers.
@Suite(.serialized) struct MachineFailureTests {
    /// Mounting a tmpfs needs root.
    static var canMount: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        try Command.run(tool, arguments).status
    }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFullDiskIsRetriedNotRemembered() throws {
        let root = try TestImages.folder("full-disk")
        let images = root + "/images", data = root + "/data"
        for folder in [images, data] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        #expect(try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", data]) == 0)
        defer { _ = try? Self.run("/bin/umount", ["-l", data]) }
        // Its pyramid (several MB) cannot fit in the 1 MB left for the data folder.
        try TestImages.writeJPEG(width: 3000, height: 2200, to: images + "/wide.jpg")
        let server = try ServerProcess(images: images, data: data)

        var failed: [String: Any]?
        let end = Date().addingTimeInterval(120)
        while failed == nil && Date() < end {
            let json = try? RawHTTP.get(server.port, "/api/images/wide").json
            if json?["status"] as? String == "failed" { failed = json }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let reason = try #require(failed?["reason"] as? String, "the build should fail on the full disk: \(server.log)")
        #expect(!reason.contains("Unknown error"), "\(reason)")
        // The build marks the image failed, then logs why: the line may come a moment after the status.
        let logged = Date().addingTimeInterval(10)
        while !server.log.contains("not the file's fault") && Date() < logged { Thread.sleep(forTimeInterval: 0.05) }
        #expect(server.log.contains("not the file's fault"), "\(server.log)")
        // Not remembered as the file's failure: a restart would build it again.
        let catalog = try Database(path: data + "/" + CatalogSchema.fileName, migrations: CatalogSchema.migrations)
        let version = try #require(failed?["version"] as? String)
        #expect(try SQLiteBuildFailureStore(database: catalog).failure(fileName: "wide.jpg", version: version) == nil)

        // Space is freed: the retry builds it, in the same process.
        #expect(try Self.run("/bin/mount", ["-o", "remount,size=256m", data]) == 0)
        let rebuilt = Date().addingTimeInterval(120)
        var status = ""
        while status != "ready" && Date() < rebuilt {
            status = (try? RawHTTP.get(server.port, "/api/images/wide").json?["status"] as? String) ?? ""
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(status == "ready", "\(server.log)")
        #expect(try RawHTTP.get(server.port, "/dzi/wide_files/12/0_0.jpeg").status == 200)
        server.signal(SIGTERM)
        #expect(try server.waitForExit() == 0)
    }
}
