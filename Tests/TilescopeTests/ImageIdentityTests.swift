import Foundation
import TestSupport
import Catalog
import Imaging
import Testing
@testable import Tilescope

/// Issue #18, identity: an id is given once to a file and kept; deleting, removing or adding
/// other files never moves it, and its rating stays with it. Real server, real HTTP, real catalog.
@Suite(.serialized) struct ImageIdentityTests {
    init() throws { try Vips.start() }

    static let token = "identity-token"
    static let auth = ["Authorization": "Bearer \(token)"]

    static func server(_ label: String, populate: (String) throws -> Void) throws -> TestServer {
        // A long rescan period: every scan in these tests is one the test asks for.
        try TestServer(label: label, configure: { config in
            config.adminToken = token
            config.rescanSeconds = 3600
        }, populate: populate)
    }

    static func json(_ server: TestServer, _ id: String) throws -> [String: Any]? {
        let reply = try server.get("/api/images/\(id)")
        return reply.status == 200 ? reply.json : nil
    }

    static func rate(_ server: TestServer, _ id: String, _ rating: Int) throws {
        let reply = try RawHTTP(port: server.port).send("PUT", "/api/images/\(id)/rating",
                                                        headers: ["Content-Type": "application/json"],
                                                        body: Array("{\"rating\":\(rating)}".utf8))
        #expect(reply.status == 200)
    }

    /// Item 1: a repeated DELETE must not reach the image that shared the deleted one's slug.
    @Test func aRepeatedDeleteNeverReachesAnotherFile() throws {
        let server = try Self.server("identity-dup") { folder in
            try TestImages.writeJPEG(width: 40, height: 30, to: folder + "/dup.jpg")
            try TestImages.writePNG(width: 30, height: 40, to: folder + "/dup.png")
        }
        try server.waitUntilBuilt()
        #expect(try Self.json(server, "dup")?["fileName"] as? String == "dup.jpg")
        #expect(try Self.json(server, "dup-png")?["fileName"] as? String == "dup.png")

        #expect(try RawHTTP(port: server.port).send("DELETE", "/api/images/dup", headers: Self.auth).status == 204)
        #expect(try server.get("/api/images/dup").status == 404)
        #expect(try RawHTTP(port: server.port).send("DELETE", "/api/images/dup", headers: Self.auth).status == 404)
        server.service.sync.sync()
        #expect(try server.get("/api/images/dup").status == 404)
        #expect(FileManager.default.fileExists(atPath: server.images + "/dup.png"))
        let survivor = try #require(try Self.json(server, "dup-png"))
        #expect(survivor["fileName"] as? String == "dup.png")
        #expect(survivor["status"] as? String == "ready")
    }

    /// Item 2: removing one of two colliding files leaves the other its id, its rating and its pyramid.
    @Test func removingAFileMovesNoIdAndNoRating() throws {
        let server = try Self.server("identity-tiger") { folder in
            try TestImages.writeJPEG(width: 40, height: 30, to: folder + "/Tiger 0.JPG", seed: 1)
            try TestImages.writeJPEG(width: 30, height: 40, to: folder + "/tiger-0.jpg", seed: 2)
        }
        try server.waitUntilBuilt()
        #expect(try Self.json(server, "tiger-0")?["fileName"] as? String == "Tiger 0.JPG")
        #expect(try Self.json(server, "tiger-0-jpg")?["fileName"] as? String == "tiger-0.jpg")
        try Self.rate(server, "tiger-0", 9)
        try Self.rate(server, "tiger-0-jpg", 2)

        #expect(unlink(server.images + "/Tiger 0.JPG") == 0)
        server.service.sync.sync()
        #expect(try server.get("/api/images/tiger-0").status == 404)
        let kept = try #require(try Self.json(server, "tiger-0-jpg"))
        #expect(kept["fileName"] as? String == "tiger-0.jpg")
        #expect(kept["ratingAverage"] as? Double == 2)
        #expect(kept["status"] as? String == "ready")

        // The removed file comes back: it gets its own id and rating back.
        try TestImages.writeJPEG(width: 40, height: 30, to: server.images + "/Tiger 0.JPG", seed: 1)
        server.service.sync.sync()
        try server.waitUntilBuilt()
        let back = try #require(try Self.json(server, "tiger-0"))
        #expect(back["fileName"] as? String == "Tiger 0.JPG")
        #expect(back["ratingAverage"] as? Double == 9)
        #expect(back["status"] as? String == "ready")
    }

    /// Item 2: a new file whose slug sorts first never steals an id (or its rating) from a file already there.
    @Test func aNewFileNeverStealsAnId() throws {
        let server = try Self.server("identity-harbour") { folder in
            try TestImages.writeJPEG(width: 40, height: 30, to: folder + "/harbour.jpg", seed: 3)
        }
        try server.waitUntilBuilt()
        try Self.rate(server, "harbour", 7)
        try TestImages.writeJPEG(width: 30, height: 40, to: server.images + "/Harbour.JPG", seed: 4)
        server.service.sync.sync()
        try server.waitUntilBuilt()
        let old = try #require(try Self.json(server, "harbour"))
        #expect(old["fileName"] as? String == "harbour.jpg")
        #expect(old["ratingAverage"] as? Double == 7)
        #expect(old["status"] as? String == "ready")
        let new = try #require(try Self.json(server, "harbour-jpg"))
        #expect(new["fileName"] as? String == "Harbour.JPG")
        #expect(new["rating"] is NSNull)
        #expect(new["status"] as? String == "ready")
    }

    /// `tilescope build` on a subset names a file as the server does.
    @Test func aSubsetBuildUsesTheServersIds() throws {
        let root = try TestImages.folder("identity-build")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        try TestImages.writeJPEG(width: 40, height: 30, to: images + "/Tiger 0.JPG", seed: 1)
        try TestImages.writeJPEG(width: 30, height: 40, to: images + "/tiger-0.jpg", seed: 2)
        var command = BuildCommand()
        command.dataFolder = root + "/data"
        command.sources = [images + "/tiger-0.jpg"]
        #expect(try command.run(progress: { _, _ in }, log: { _ in }) == 0)
        let built = try FileManager.default.contentsOfDirectory(atPath: root + "/data/pyramids")
        #expect(built.contains("tiger-0-jpg"))
        #expect(!built.contains("tiger-0"))
    }

    /// Non-ASCII names keep their letters.
    @Test func nonASCIINamesAreTransliterated() throws {
        let server = try Self.server("identity-names") { folder in
            try TestImages.writeJPEG(width: 20, height: 20, to: folder + "/café ñ.jpg", seed: 1)
            try TestImages.writeJPEG(width: 20, height: 20, to: folder + "/Ærø.jpg", seed: 2)
            try TestImages.writeJPEG(width: 20, height: 20, to: folder + "/日本-2.jpg", seed: 3)
        }
        #expect(try Self.json(server, "cafe-n")?["fileName"] as? String == "café ñ.jpg")
        #expect(try Self.json(server, "aero")?["fileName"] as? String == "Ærø.jpg")
        #expect(try Self.json(server, "ri-ben-2")?["fileName"] as? String == "日本-2.jpg")
    }

    /// A catalog from before ids were kept: the server adopts the ids the old scheme gave, so every
    /// rating shows on the file that had it; a later newcomer takes none of them.
    @Test func anExistingCatalogKeepsEveryRatingOnItsFile() throws {
        let server = try Self.server("identity-migrate") { folder in
            try TestImages.writeJPEG(width: 40, height: 30, to: folder + "/Tiger 0.JPG", seed: 1)
            try TestImages.writeJPEG(width: 30, height: 40, to: folder + "/tiger-0.jpg", seed: 2)
            try TestImages.writeJPEG(width: 20, height: 20, to: folder + "/café ñ.jpg", seed: 3)
            let data = (folder as NSString).deletingLastPathComponent + "/data"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let v1 = try Database(path: data + "/" + CatalogSchema.fileName, migrations: Array(CatalogSchema.migrations.prefix(1)))
            try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("tiger-0"), .integer(9)) }
            try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("tiger-0-jpg"), .integer(2)) }
            try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("caf"), .integer(5)) }
            try v1.write { try $0.execute("INSERT INTO images (id, added_ms, rating) VALUES (?, 0, ?)", .text("harbour"), .integer(4)) }  // a file gone before the upgrade
            v1.close()
        }
        #expect(try Self.json(server, "tiger-0")?["ratingAverage"] as? Double == 9)
        #expect(try Self.json(server, "tiger-0")?["fileName"] as? String == "Tiger 0.JPG")
        #expect(try Self.json(server, "tiger-0-jpg")?["ratingAverage"] as? Double == 2)
        #expect(try Self.json(server, "caf")?["fileName"] as? String == "café ñ.jpg")
        #expect(try Self.json(server, "caf")?["ratingAverage"] as? Double == 5)
        try TestImages.writeJPEG(width: 20, height: 20, to: server.images + "/harbour.jpg", seed: 4)
        server.service.sync.sync()
        #expect(try server.get("/api/images/harbour").status == 404)
        let newcomer = try #require(try Self.json(server, "harbour-jpg"))
        #expect(newcomer["rating"] is NSNull)
    }
}
