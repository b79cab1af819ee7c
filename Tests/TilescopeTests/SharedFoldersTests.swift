import Foundation
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// Several real `tilescope` processes on one images folder and one data folder, with default
/// settings: however their builds of the same files interleave, none fails or spoils another's,
/// and each ends up serving every image, ready, with whole tiles.
@Suite(.serialized) struct SharedFoldersTests {
    /// Sources dropped into the folder while the processes run: JPEGs (base published first, from a
    /// 1/8 decode) and a PNG (base at the end of the full pass), big enough to have finer levels.
    static let sources: [(name: String, width: Int, height: Int)] = [
        ("big1.jpg", 3000, 2200), ("big2.jpg", 2600, 2600), ("big3.jpg", 3400, 1900), ("big4.jpg", 2900, 2100),
        ("big5.jpg", 2200, 3000), ("flat.png", 1800, 1300),
    ]

    /// Writes each source under a hidden name (never listed), then renames it in: both servers see
    /// whole files at the same moment.
    static func drop(into images: String) throws {
        for (index, source) in sources.enumerated() {
            let hidden = images + "/." + source.name
            if source.name.hasSuffix(".png") {
                try TestImages.writePNG(width: source.width, height: source.height, to: hidden, seed: index)
            } else {
                try TestImages.writeJPEG(width: source.width, height: source.height, to: hidden, seed: index)
            }
        }
        for source in sources { #expect(rename(images + "/." + source.name, images + "/" + source.name) == 0) }
    }

    /// The ids, from the file names.
    static var ids: [String] { sources.map { String($0.name.prefix { $0 != "." }) } }

    /// Polls until the server lists every source as ready or failed; fails the test at the deadline.
    static func waitUntilSettled(_ server: ServerProcess, timeout: Double = 240) throws -> [String: [String: Any]] {
        let end = Date().addingTimeInterval(timeout)
        var last: [String: [String: Any]] = [:]
        while Date() < end {
            let images = (try? RawHTTP.get(server.port, "/api/images").json?["images"] as? [[String: Any]]) ?? []
            last = Dictionary(images.compactMap { image in (image["id"] as? String).map { ($0, image) } }) { a, _ in a }
            let settled = ids.allSatisfy { id in ["ready", "failed"].contains(last[id]?["status"] as? String) }
            if settled { return last }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("not every image settled after \(timeout) s: \(last.mapValues { $0["status"] ?? "?" })\n\(server.log)")
    }

    /// Every image ready and served whole: its deepest level's corner tiles and its preview answer 200.
    static func expectAllServed(_ server: ServerProcess, _ label: String) throws {
        let images = try waitUntilSettled(server)
        for (source, id) in zip(sources, ids) {
            let image = images[id]
            #expect(image?["status"] as? String == "ready",
                    "\(label): \(id) is \(image?["status"] ?? "missing"): \(image?["reason"] ?? "")\n\(server.log)")
            let pyramid = Pyramid(width: source.width, height: source.height)
            let grid = pyramid.tileGrid(ofLevel: pyramid.maxLevel)
            for (column, row) in [(0, 0), (grid.columns - 1, grid.rows - 1)] {
                let path = "/dzi/\(id)_files/\(pyramid.maxLevel)/\(column)_\(row).jpeg"
                let reply = try RawHTTP.get(server.port, path)
                #expect(reply.status == 200, "\(label): \(path) answers \(reply.status)")
                let rect = pyramid.tileRect(level: pyramid.maxLevel, column: column, row: row)
                #expect(JPEGSize.of(reply.body) == PixelSize(width: rect.width, height: rect.height), "\(label): \(path)")
            }
            #expect(try RawHTTP.get(server.port, "/images/\(id)/preview.jpeg").status == 200, "\(label): \(id) preview")
        }
        #expect(!server.log.contains("failed to build"), "\(label):\n\(server.log)")
        #expect(!server.log.contains("cannot publish"), "\(label):\n\(server.log)")
    }

    @Test func twoServersOnTheSameFoldersBothServeEveryImage() throws {
        let root = try TestImages.folder("shared-two-servers")
        let images = root + "/images", data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let first = try ServerProcess(images: images, data: data)
        let second = try ServerProcess(images: images, data: data)
        try Self.drop(into: images)
        try Self.expectAllServed(first, "first")
        try Self.expectAllServed(second, "second")
        // Each version was published once, whole: one folder per image, its manifest complete.
        for id in Self.ids {
            let versions = try FileManager.default.contentsOfDirectory(atPath: "\(data)/pyramids/\(id)")
            #expect(versions.count == 1, "\(id): \(versions)")
        }
        for server in [first, second] {
            server.signal(SIGTERM)
            #expect(try server.waitForExit() == 0)
        }
    }

    @Test func buildCommandBesideARunningServerFailsNeither() throws {
        let root = try TestImages.folder("shared-build-command")
        let images = root + "/images", data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let server = try ServerProcess(images: images, data: data)
        try Self.drop(into: images)
        // At once, while the server builds the same files.
        let build = try Command.run(ServerProcess.executable, ["build", "--data", data] + Self.sources.map { images + "/" + $0.name },
                                    environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") })
        let text = build.output
        #expect(build.status == 0, "tilescope build: \(text)")
        #expect(!text.contains("failed"), "tilescope build: \(text)")
        try Self.expectAllServed(server, "server")
        server.signal(SIGTERM)
        #expect(try server.waitForExit() == 0)
    }
}
