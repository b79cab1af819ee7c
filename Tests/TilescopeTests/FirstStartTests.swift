import Foundation
import Imaging
import Testing
import TestSupport
@testable import Tilescope

/// A first start listens at once (issue 43, goal 3): on a data folder that remembers nothing, the
/// server answers while its first scan lists the folder, in batches a client can page through, and
/// the ids come out as one whole scan gives them.
@Suite(.serialized) struct FirstStartTests {
    init() throws { try Vips.start() }

    static func config(images: String, data: String) -> ServeConfig {
        var config = ServeConfig()
        config.host = "127.0.0.1"
        config.port = 0
        config.imagesFolder = images
        config.dataFolder = data
        config.publicFolder = TestServer.repositoryRoot + "/Public"
        config.rescanSeconds = 1
        config.settleSeconds = 0
        config.quiet = true
        Log.quiet = true
        return config
    }

    static func ids(_ port: Int) throws -> [String] {
        try #require(try RawHTTP.get(port, "/api/images?limit=1000").json?["images"] as? [[String: Any]]).map { $0["id"] as! String }
    }

    /// The first scan is held back (the library's lock is taken here) while the server is asked:
    /// it answers /healthz and an empty list, and /readyz says why it is not ready yet.
    @Test func aFirstStartAnswersBeforeItsFirstScan() throws {
        let root = try TestImages.folder("first-start-order")
        try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        try GalleryScaleTests.writeImages(["one.jpg", "two.jpg", "three.jpg"], into: root + "/images")
        let service = try TilescopeService(Self.config(images: root + "/images", data: root + "/data"))
        defer { service.stop() }
        try service.sync.changingFolder {
            try service.start()
            let port = service.server.port
            #expect(try RawHTTP.get(port, "/healthz").status == 200)
            let list = try RawHTTP.get(port, "/api/images?limit=10")
            #expect(list.status == 200)
            #expect(list.json?["count"] as? Int == 0)
            let ready = try RawHTTP.get(port, "/readyz")
            #expect(ready.status == 503)
            let checks = try #require(ready.json?["checks"] as? [[String: Any]])
            let library = try #require(checks.first { $0["name"] as? String == "library" })
            #expect(library["ok"] as? Bool == false)
            #expect((library["reason"] as? String)?.contains("first scan") == true, "\(library)")
            #expect(try RawHTTP.get(port, "/api/images/two").status == 404)
        }
        let end = Date().addingTimeInterval(60)
        while service.firstScanUnderWay.load(ordering: .relaxed), Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try RawHTTP.get(service.server.port, "/readyz").status == 200)
        #expect(try Self.ids(service.server.port).sorted() == ["one", "three", "two"])
    }

    /// The scan lists its files a batch at a time: after each batch a client sees exactly what was
    /// found so far, pages through it by cursor, and the ids are the ones a single whole scan binds,
    /// even for names whose ids depend on each other across batches (docs/ids.md).
    @Test func theListGrowsBatchByBatchWithTheIdsOfOneWholeScan() throws {
        let root = try TestImages.folder("first-start-batches")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        // Sorted by bytes: "Foo.jpg" < "foo.jpg" < "foo=jpg.png"; one whole scan gives foo=jpg.png the
        // plain slug foo-jpg (plain slugs first), so foo.jpg, in the batch before it, must not take it.
        let names = ["Foo.jpg", "foo.jpg", "foo=jpg.png"] + (0..<8).map { "photo \($0).jpg" }
        try GalleryScaleTests.writeImages(names, into: images)

        let whole = try TilescopeService(Self.config(images: images, data: root + "/data-whole"))
        whole.sync.sync()
        let wholeIDs = whole.library.all.map { "\($0.fileName)=\($0.id)" }.sorted()
        whole.stop()

        let service = try TilescopeService(Self.config(images: images, data: root + "/data"))
        defer { service.stop() }
        try service.server.start()  // listening, with nothing scanned: the batches come from this test
        var listed: [Int] = []
        let done = service.sync.firstScan(batch: 2) { count in
            listed.append(count)
            // A client follows the list by cursor between two batches: it sees what was found so far.
            var seen: [String] = []
            var cursor: String?
            repeat {
                let reply = try? RawHTTP.get(service.server.port, "/api/images?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
                seen += ((reply?.json?["images"] as? [[String: Any]]) ?? []).map { $0["id"] as! String }
                cursor = reply?.json?["next"] as? String
            } while cursor != nil && seen.count <= names.count
            #expect(seen.count == count)
            #expect(Set(seen).count == seen.count)
        }
        #expect(done)
        #expect(listed == [2, 4, 6, 8, 10, 11])
        #expect(service.sync.fullScansCompleted == 1)
        #expect(service.library.all.map { "\($0.fileName)=\($0.id)" }.sorted() == wholeIDs)
        #expect(wholeIDs.contains("foo=jpg.png=foo-jpg"), "\(wholeIDs)")
    }

    /// The real binary on a folder of a few thousand files: it answers /healthz before or while it
    /// scans, a client paging by cursor meanwhile never sees an image twice, and the list ends whole.
    @Test func theRealServerListsABigFolderBehindItsFirstAnswer() throws {
        let root = try TestImages.folder("first-start-big")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let bytes = try Data(VImage.fromPixels(TestImages.pixels(width: 16, height: 16), width: 16, height: 16, bands: 3)
            .jpegData(quality: 80))
        let count = 3000
        for index in 0..<count {
            try bytes.write(to: URL(fileURLWithPath: String(format: "%@/p%05d.jpg", images, index)))
        }
        // Not ServerProcess: it waits for the first scan to be done.
        let port = ServerProcess.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.executable)
        process.arguments = ["serve", "--images", images, "--data", root + "/data", "--port", String(port), "--host", "127.0.0.1",
                             "--settle", "0", "--quiet", "--public", TestServer.repositoryRoot + "/Public"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let end = Date().addingTimeInterval(120)
        while (try? RawHTTP.get(port, "/healthz"))?.status != 200, Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try RawHTTP.get(port, "/healthz").status == 200)
        // Page through by cursor while the scan goes on; then again once it is done.
        var seen: [String] = []
        var cursor: String?
        repeat {
            let reply = try RawHTTP.get(port, "/api/images?limit=250" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(reply.status == 200)
            seen += ((reply.json?["images"] as? [[String: Any]]) ?? []).map { $0["id"] as! String }
            cursor = reply.json?["next"] as? String
        } while cursor != nil && seen.count <= count
        #expect(Set(seen).count == seen.count, "an image came twice")
        while try RawHTTP.get(port, "/readyz").status != 200, Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try RawHTTP.get(port, "/readyz").status == 200)
        #expect(try RawHTTP.get(port, "/api/images?limit=1").json?["count"] as? Int == count)
    }
}

/// Which files a first scan may bind before it knows the whole folder.
@Suite struct FirstScanOrderTests {
    @Test func namesWhoseSlugNoEarlierNameSharesComeFirst() {
        let names = ["foo=jpg.png", "b.jpg", "Foo.jpg", "foo.jpg", "a b.jpg", "a-b.png"]
        let order = FirstScanOrder(names, catalogIsEmpty: true)
        // Byte order: "Foo.jpg" < "a b.jpg" < "a-b.png" < "b.jpg" < "foo.jpg" < "foo=jpg.png".
        #expect(order.parts == [["Foo.jpg", "a b.jpg", "b.jpg", "foo=jpg.png"], ["a-b.png", "foo.jpg"]])
        #expect(order.wholeBindingBefore == 1)
        // A catalog with bindings: every id may depend on them, so the whole folder is bound first.
        let known = FirstScanOrder(names, catalogIsEmpty: false)
        #expect(known.parts == [["Foo.jpg", "a b.jpg", "a-b.png", "b.jpg", "foo.jpg", "foo=jpg.png"]])
        #expect(known.wholeBindingBefore == 0)
    }
}
