import SeededRandom
import Foundation
import TestSupport
import Imaging
import Testing
@testable import Tilescope

/// Issue #18, identity as a property: random histories of adds, removals, renames, replacements,
/// deletions over HTTP and ratings, over names whose slugs collide. Afterwards every rating is on
/// the file it was given to, every present file is built or failed with a reason, and no id ever
/// named two files. Real server, real folder, real catalog; the periodic rescan runs beside ours.
@Suite(.serialized) struct IdentityPropertyTests {
    init() throws { try Vips.start() }

    static let names = ["Tiger 0.JPG", "tiger-0.jpg", "tiger 0.png", "tiger_0.png", "dup.jpg", "dup.png", "café.jpg",
                        "Café.JPG", "cafe.png", "harbour.jpg", "Harbour.JPG", "日本.png", "image.jpg", "!!!.png"]
    static let token = "property-token"

    /// What the test did, which the server must agree with.
    struct Model {
        var present: Set<String> = []
        /// The last rating given to each file; nil once the file is deleted (or never rated).
        var rating: [String: Int] = [:]
        /// Every id a file name was ever seen with, and the reverse: each must stay a single value.
        var idOfName: [String: String] = [:]
        var nameOfID: [String: String] = [:]
        /// The one viewer who rates (its cookie), so that its own rating of each file is the last it gave.
        var viewer = TestViewer(address: "127.0.0.1")
        /// Ratings written so far: each comes from a loopback address of its own, so the per-client write budget
        /// (10 at once, 30 a minute) is never what a step meets.
        var writes = 0
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomHistoriesKeepIdsAndRatingsWithTheirFiles(seed: UInt64) throws {
        let server = try TestServer(label: "identity-property-\(seed)", configure: { config in
            config.adminToken = Self.token
            config.rescanSeconds = 1
        }, populate: { _ in })
        let scratch = try TestImages.folder("identity-property-scratch")
        var random = SeededGenerator(seed: seed)
        var model = Model()
        for step in 0..<120 {
            try Self.randomStep(&random, &model, server, scratch: scratch, step: step)
            server.service.sync.sync()
            try Self.checkIDs(&model, server)
        }
        try server.waitUntilBuilt(timeout: 60)
        try Self.checkIDs(&model, server)
        let listed = Set(server.service.library.all.map(\.fileName))
        #expect(listed == model.present)
        for name in model.present {
            let id = try #require(model.idOfName[name])
            let json = try #require(try server.get("/api/images/\(id)").json)
            #expect(json["fileName"] as? String == name)
            let own = try #require(try model.viewer.get(server.port, "/api/images/\(id)").json)
            #expect(own["rating"] as? Int == model.rating[name], "rating of \(name) (\(id))")
            switch json["status"] as? String {
            case "ready": break
            case "failed": #expect(!((json["reason"] as? String) ?? "").isEmpty, "\(name) failed without a reason")
            default: Issue.record("\(name) (\(id)) is \(json["status"] ?? "?") after every build ended")
            }
        }
    }

    /// One random change to the folder or the catalog, recorded in `model`.
    static func randomStep(_ random: inout SeededGenerator, _ model: inout Model, _ server: TestServer,
                           scratch: String, step: Int) throws {
        let folder = server.images
        let present = model.present.sorted()
        let absent = names.filter { !model.present.contains($0) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0...2 where !absent.isEmpty:  // add
            let name = absent.randomElement(using: &random)!
            try place(name, in: folder, scratch: scratch, seed: step)
            model.present.insert(name)
        case 3 where !present.isEmpty:  // remove
            let name = present.randomElement(using: &random)!
            #expect(unlink("\(folder)/\(name)") == 0)
            model.present.remove(name)
        case 4 where !present.isEmpty && !absent.isEmpty:  // rename
            let from = present.randomElement(using: &random)!, to = absent.randomElement(using: &random)!
            #expect(rename("\(folder)/\(from)", "\(folder)/\(to)") == 0)
            model.present.remove(from)
            model.present.insert(to)
        case 5 where !present.isEmpty:  // replace the content
            try place(present.randomElement(using: &random)!, in: folder, scratch: scratch, seed: step)
        case 6 where !present.isEmpty:  // delete over HTTP
            let name = present.randomElement(using: &random)!
            let id = try #require(model.idOfName[name])
            let auth = ["Authorization": "Bearer \(token)"]
            #expect(try RawHTTP(port: server.port).send("DELETE", "/api/images/\(id)", headers: auth).status == 204)
            #expect(try RawHTTP(port: server.port).send("DELETE", "/api/images/\(id)", headers: auth).status == 404)
            #expect(try server.get("/api/images/\(id)").status == 404)
            model.present.remove(name)
            model.rating[name] = nil
        case 7...9 where !present.isEmpty:  // rate
            let name = present.randomElement(using: &random)!
            let id = try #require(model.idOfName[name])
            let rating = Int.random(in: 0...10, using: &random)
            model.writes += 1
            let writer = TestViewer(address: "127.0.\(1 + model.writes / 200).\(1 + model.writes % 200)", cookie: model.viewer.cookie)
            let reply = try writer.rate(server.port, id, rating)
            #expect(reply.status == 200)
            model.viewer.cookie = writer.cookie
            model.rating[name] = rating
        default:
            break
        }
    }

    /// Writes a tiny image outside the folder and renames it in, so no scan sees half a file.
    static func place(_ name: String, in folder: String, scratch: String, seed: Int) throws {
        let temporary = "\(scratch)/next"
        let side = 8 + seed % 17
        if name.lowercased().hasSuffix(".png") {
            try TestImages.writePNG(width: side, height: side + 3, to: temporary, seed: seed)
        } else {
            try TestImages.writeJPEG(width: side, height: side + 3, to: temporary, seed: seed)
        }
        #expect(rename(temporary, "\(folder)/\(name)") == 0)
    }

    /// The library lists exactly the present files, each under the one id it ever had, no id under two names.
    static func checkIDs(_ model: inout Model, _ server: TestServer) throws {
        for record in server.service.library.all {
            #expect(model.present.contains(record.fileName), "\(record.fileName) is listed but not in the folder")
            if let earlier = model.idOfName[record.fileName] {
                #expect(earlier == record.id, "\(record.fileName) moved from id \(earlier) to \(record.id)")
            }
            if let earlier = model.nameOfID[record.id] {
                #expect(earlier == record.fileName, "id \(record.id) named \(earlier), now \(record.fileName)")
            }
            model.idOfName[record.fileName] = record.id
            model.nameOfID[record.id] = record.fileName
        }
        #expect(server.service.library.all.count == model.present.count)
    }
}
