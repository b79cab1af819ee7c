import Foundation
import Imaging
import Testing
import TestSupport
@testable import Tilescope

/// Large galleries (issue #13, goal 5): keyset paging of `GET /api/images`, its cursor checks,
/// serving from the catalog before the first scan, and new files noticed without a full scan.
@Suite(.serialized) struct GalleryScaleTests {
    init() throws { try Vips.start() }

    static func writeImages(_ names: [String], into folder: String) throws {
        for (index, name) in names.enumerated() {
            try TestImages.writeJPEG(width: 8 + index % 5, height: 8, to: folder + "/" + name, seed: index)
        }
    }

    /// Follows `next` from the first page; runs `between` after each page.
    static func pages(_ server: TestServer, query: String, between: (Int) throws -> Void = { _ in }) throws -> [[String]] {
        var pages: [[String]] = []
        var cursor: String?
        repeat {
            let path = "/api/images?\(query)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let reply = try server.get(path)
            try #require(reply.status == 200, "\(path): \(reply.text)")
            let json = try #require(reply.json)
            pages.append(try #require(json["images"] as? [[String: Any]]).map { $0["id"] as! String })
            cursor = json["next"] as? String
            #expect(json["count"] is Int)
            #expect(pages.count < 100, "paging does not end")
            try between(pages.count)
        } while cursor != nil && pages.count < 100
        return pages
    }

    @Test func pagingNeitherSkipsNorRepeatsWhileFilesComeAndGo() throws {
        let initial = (0..<30).map { String(format: "img%03d.jpg", $0 * 2) }  // even numbers: odd ones slot in between
        let server = try TestServer(label: "paging-stable") { try Self.writeImages(initial, into: $0) }
        let unpaged = try #require(try server.get("/api/images").json?["images"] as? [[String: Any]]).map { $0["id"] as! String }
        #expect(unpaged.count == 30)
        var added: [String] = []
        var deleted: Set<String> = []
        let pages = try Self.pages(server, query: "limit=7") { page in
            // Between pages: new files before, inside and after the part already read, and a file removed.
            let fresh = [String(format: "img%03d.jpg", page * 8 + 1), String(format: "img%03d.jpg", 59 - page * 2), "aaa\(page).jpg", "zzz\(page).jpg"]
            try Self.writeImages(fresh, into: server.images)
            added += fresh
            let doomed = String(format: "img%03d.jpg", 58 - page * 4)
            if unlink(server.images + "/" + doomed) == 0 { deleted.insert(String(doomed.dropLast(4))) }
            server.service.sync.sync()
        }
        let seen = pages.flatMap { $0 }
        #expect(Set(seen).count == seen.count, "an image came twice: \(seen)")
        let stayed = Set(unpaged).subtracting(deleted)
        #expect(stayed.isSubset(of: Set(seen)), "skipped: \(stayed.subtracting(seen).sorted())")
        #expect(pages.dropLast().allSatisfy { $0.count == 7 })
        // Pages come in the gallery's order.
        let order = try #require(try server.get("/api/images").json?["images"] as? [[String: Any]]).map { $0["id"] as! String }
        let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let ranks = seen.compactMap { rank[$0] }
        #expect(ranks == ranks.sorted())
        #expect(!added.isEmpty)
    }

    @Test func everySortPagesThroughTheSameImagesAsTheFullList() throws {
        let names = (0..<12).map { "photo \($0).jpg" }
        let server = try TestServer(label: "paging-sorts") { try Self.writeImages(names, into: $0) }
        _ = try RawHTTP(port: server.port).send("PUT", "/api/images/photo-3/rating", headers: ["Content-Type": "application/json"],
                                                body: Array(#"{"rating": 9}"#.utf8))
        for sort in ["name", "rating", "added"] {
            let full = try #require(try server.get("/api/images?sort=\(sort)").json?["images"] as? [[String: Any]]).map { $0["id"] as! String }
            let paged = try Self.pages(server, query: "sort=\(sort)&limit=5").flatMap { $0 }
            #expect(paged == full, "sort=\(sort)")
        }
        let last = try server.get("/api/images?limit=1000").json
        #expect(last?["next"] is NSNull)
        #expect(last?["count"] as? Int == 12)
        // The carousel endpoint finds an image's page by id.
        let page = try server.get("/api/gallery?image=photo-3&sort=rating").json
        #expect(page?["page"] as? Int == 0)
        #expect((page?["current"] as? [String: Any])?["id"] as? String == "photo-3")
        #expect(try server.get("/api/gallery?image=nope").status == 404)
    }

    @Test func badCursorsAndLimitsAreClearJSONErrors() throws {
        let server = try TestServer(label: "paging-errors") { try Self.writeImages(["a.jpg", "b.jpg", "c.jpg"], into: $0) }
        let first = try #require(try server.get("/api/images?limit=1").json)
        let cursor = try #require(first["next"] as? String)
        #expect(try server.get("/api/images?cursor=\(cursor)").status == 200)
        let forged = Data(#"{"id":"","name":"x","sort":"name"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        let bad = ["limit=0", "limit=1001", "limit=-3", "limit=ten", "limit=99999999999999999999999",
                   "cursor=not-a-cursor", "cursor=", "cursor=%F0%9F%98%80", "cursor=\(forged)",
                   "cursor=\(String(repeating: "A", count: 5000))", "sort=rating&cursor=\(cursor)", "sort=worst&limit=2"]
        for query in bad {
            let reply = try server.get("/api/images?\(query)")
            #expect(reply.status == 400, "\(query.prefix(60)): \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.json?["error"] as? String == "bad_request", "\(query.prefix(60))")
            #expect(reply.header("Access-Control-Allow-Origin") == "*", "\(query.prefix(60))")
        }
        // A cursor past the end: an empty last page, not an error.
        let last = try #require(try Self.pages(server, query: "limit=3").last)
        #expect(last.count == 3)
    }

    /// Start-up order: with the catalog remembering the last run, images are answered (ready, with
    /// tiles) while the first full scan has not even begun: the scan waits for the lock held here.
    @Test func aRestartAnswersFromTheCatalogBeforeItsFirstScan() throws {
        let first = try TestServer(label: "restart-order") { try Self.writeImages(["one.jpg", "two.jpg"], into: $0) }
        try first.waitUntilBuilt()
        first.service.sync.sync()  // the finished builds are remembered by the next pass
        first.service.stop()
        var config = first.service.config
        config.port = 0
        let second = try TilescopeService(config)
        defer { second.stop() }
        try second.sync.changingFolder {
            try second.start()
            #expect(second.sync.fullScansCompleted == 0)
            let reply = try RawHTTP.get(second.server.port, "/api/images/two")
            #expect(reply.status == 200)
            #expect(reply.json?["status"] as? String == "ready")
            let tiles = try #require((reply.json?["urls"] as? [String: Any])?["tiles"] as? String)
            let tile = tiles.replacingOccurrences(of: "{level}", with: "0").replacingOccurrences(of: "{col}", with: "0")
                .replacingOccurrences(of: "{row}", with: "0")
            #expect(try RawHTTP.get(second.server.port, tile).status == 200)
            #expect(try RawHTTP.get(second.server.port, "/api/images?limit=1").json?["count"] as? Int == 2)
            #expect(second.sync.fullScansCompleted == 0)
        }
        #expect(second.sync.fullScansCompleted >= 1)
    }

    /// A file dropped into the folder is picked up by the watcher's names, not by a full scan.
    @Test func aNewFileIsNoticedWithoutAFullScan() throws {
        let server = try TestServer(label: "watch-new") { try Self.writeImages(["base.jpg"], into: $0) }
        #if canImport(Glibc)
        #expect(TilescopeService.watcher(for: server.images) is InotifyWatcher)
        #endif
        let scans = server.service.sync.fullScansCompleted
        // Written under a hidden name, then renamed in: the scanner never sees a partial file.
        try TestImages.writeJPEG(width: 12, height: 9, to: server.images + "/.incoming.jpg")
        #expect(rename(server.images + "/.incoming.jpg", server.images + "/dropped.jpg") == 0)
        let deadline = Date().addingTimeInterval(60)
        var status = 0
        while Date() < deadline {
            status = try server.get("/api/images/dropped").status
            if status == 200 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(status == 200)
        #expect(server.service.sync.fullScansCompleted == scans)
        // And a removed one disappears the same way.
        #expect(unlink(server.images + "/dropped.jpg") == 0)
        while Date() < deadline, try server.get("/api/images/dropped").status != 404 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try server.get("/api/images/dropped").status == 404)
        #expect(server.service.sync.fullScansCompleted == scans)
    }

    @Test func theWatchersReportWhatChanged() throws {
        let folder = try TestImages.folder("watchers")
        #if canImport(Glibc)
        let inotify = try #require(InotifyWatcher(folder: folder))
        #expect(inotify.takeChanges() == .nothing)
        let file = open(folder + "/new.jpg", O_CREAT | O_WRONLY, 0o644)
        #expect(file >= 0 && write(file, [1, 2, 3], 3) == 3)
        close(file)
        #expect(inotify.takeChanges() == .names(["new.jpg"]))
        #expect(inotify.takeChanges() == .nothing)
        #endif
        let stamp = DirectoryStampWatcher(folder: folder, sweepEvery: 1000)
        #expect(stamp.takeChanges() == .nothing)
        // The folder's mtime has nanoseconds here; a rename changes it.
        #expect(rename(folder + "/new.jpg", folder + "/renamed.jpg") == 0)
        #expect(stamp.takeChanges() == .everything)
        #expect(stamp.takeChanges() == .nothing)
    }
}
