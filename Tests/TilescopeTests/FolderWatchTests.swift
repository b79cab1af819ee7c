import Catalog
import Foundation
import Imaging
import Testing
import TestSupport
@testable import Tilescope

/// A new file is seen at once (issue 43, goal 4), over real HTTP against the real binary: a whole file
/// hard-linked or renamed into the folder is listed long before the periodic pass (`--rescan 30`) and
/// the settle wait (`--settle 30`) would list it; a file still being written is never listed (so never
/// built) while a writer holds it open, however it came in.
@Suite(.serialized) struct FolderWatchTests {
    init() throws { try Vips.start() }

    /// Both far beyond what a test waits for a prompt look: only the folder watch can list a file here.
    static let slowPasses = ["--rescan", "30", "--settle", "30"]

    static func status(_ server: ServerProcess, _ id: String) -> Int {
        (try? RawHTTP.get(server.port, "/api/images/\(id)"))?.status ?? 0
    }

    /// Polls until `condition` holds or `timeout` seconds pass; whether it held.
    static func eventually(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    /// Waits for `id` to leave the building state; its status then.
    static func finalStatus(_ server: ServerProcess, _ id: String, timeout: Double = 120) -> String? {
        var status: String?
        _ = eventually(timeout) {
            status = (try? RawHTTP.get(server.port, "/api/images/\(id)"))?.json?["status"] as? String
            return status == "ready" || status == "failed"
        }
        return status
    }

    static func jpegBytes(seed: Int) throws -> [UInt8] {
        try VImage.fromPixels(TestImages.pixels(width: 96, height: 64, seed: seed), width: 96, height: 64, bands: 3)
            .jpegData(quality: 90)
    }

    static func write(_ bytes: ArraySlice<UInt8>, to fd: Int32) {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
    }

    @Test func aWholeFileLinkedOrRenamedInIsListedAtOnceAndBuilt() throws {
        let root = try TestImages.folder("watch-link")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        // Written outside the folder just now: their modification time alone would hold them for --settle.
        try TestImages.writeJPEG(width: 300, height: 200, to: root + "/linked.jpg", seed: 1)
        try TestImages.writeJPEG(width: 200, height: 300, to: root + "/moved.jpg", seed: 2)
        let server = try ServerProcess(images: images, data: root + "/data", extra: Self.slowPasses)
        let started = Date()
        #expect(link(root + "/linked.jpg", images + "/linked.jpg") == 0)
        #expect(rename(root + "/moved.jpg", images + "/moved.jpg") == 0)
        #expect(Self.eventually(20) { Self.status(server, "linked") == 200 && Self.status(server, "moved") == 200 },
                "not listed: \(server.log)")
        // Listed by the watch, not by a pass: none has run yet (the first comes 30 s after the start).
        #expect(Date().timeIntervalSince(started) < 30 || Self.status(server, "linked") != 200)
        for id in ["linked", "moved"] {
            #expect(Self.finalStatus(server, id) == "ready", "\(id): \(server.log)")
            let preview = try #require((try RawHTTP.get(server.port, "/api/images/\(id)").json?["urls"] as? [String: Any])?["preview"] as? String)
            #expect(try RawHTTP.get(server.port, preview).status == 200)
        }
        // A removal is seen at once too.
        #expect(unlink(images + "/moved.jpg") == 0)
        #expect(Self.eventually(20) { Self.status(server, "moved") == 404 })
    }

    @Test func aFileStillBeingWrittenIsNeitherListedNorBuiltUntilItIsWhole() throws {
        let root = try TestImages.folder("watch-partial")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        let server = try ServerProcess(images: images, data: root + "/data", extra: Self.slowPasses)
        let started = Date()
        let bytes = try Self.jpegBytes(seed: 3)
        let half = bytes.count / 2

        // Written in place, left open: created and written, never closed.
        let growing = open(images + "/growing.jpg", O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        // Two writers: one closes (a close-write event) while the other still holds the file open.
        let first = open(images + "/two-writers.jpg", O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        let second = open(images + "/two-writers.jpg", O_WRONLY | O_APPEND | O_CLOEXEC)
        // A copy hard-linked in while still being written elsewhere: an untouched create, as a whole file's link.
        let copying = open(root + "/copying.jpg", O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        try #require(growing >= 0 && first >= 0 && second >= 0 && copying >= 0)
        Self.write(bytes[..<half], to: growing)
        Self.write(bytes[..<half], to: first)
        close(first)
        Self.write(bytes[..<half], to: copying)
        #expect(link(root + "/copying.jpg", images + "/linked-early.jpg") == 0)
        // A whole file linked in after them: once it is listed, the watch has looked at every event before it.
        try TestImages.writeJPEG(width: 64, height: 64, to: root + "/barrier.jpg", seed: 4)
        #expect(link(root + "/barrier.jpg", images + "/barrier.jpg") == 0)
        #expect(Self.eventually(20) { Self.status(server, "barrier") == 200 }, "\(server.log)")
        for id in ["growing", "two-writers", "linked-early"] {
            #expect(Self.status(server, id) == 404, "\(id) listed while still being written")
        }

        // Finished and closed where the folder's watch sees it: listed at once, and built whole.
        Self.write(bytes[half...], to: growing)
        close(growing)
        Self.write(bytes[half...], to: second)
        close(second)
        #expect(Self.eventually(20) { Self.status(server, "growing") == 200 && Self.status(server, "two-writers") == 200 },
                "\(server.log)")
        for id in ["growing", "two-writers"] {
            #expect(Self.finalStatus(server, id) == "ready", "\(id): \(server.log)")
        }
        // Closed through a path outside the folder: no event here proves it whole, so it waits for --settle
        // and the next pass (30 s from the start), as any file seen only by a pass does.
        Self.write(bytes[half...], to: copying)
        close(copying)
        Thread.sleep(forTimeInterval: 0.5)
        if Date().timeIntervalSince(started) < 25 {
            #expect(Self.status(server, "linked-early") == 404)
        }
    }
}

/// The rules that read inotify events and the kernel's word on writers, apart from the server.
@Suite struct FolderEventsTests {
    static func events(_ list: [(UInt32, String)]) -> FolderEvents {
        var events = FolderEvents()
        for (mask, name) in list { events.record(mask: mask, name: name) }
        return events
    }

    @Test func theLastEventAboutANameDecides() {
        let e = FolderEvents.self
        let cases: [([UInt32], FolderEvents.State)] = [
            ([e.create], .closed),                                  // a hard link (or a file not written yet)
            ([e.create, e.attributes], .closed),                    // a hard link also changes the link count
            ([e.create, e.modify], .written),                       // a copy arriving
            ([e.create, e.modify, e.modify, e.closeWrite], .closed),
            ([e.closeWrite, e.modify], .written),                   // written again after a close
            ([e.movedTo], .closed),
            ([e.create, e.modify, e.delete], .removed),
            ([e.movedFrom], .removed),
            ([e.delete, e.movedTo], .closed),                       // replaced by a rename
            ([e.attributes], .touched),                             // touch, chmod
            ([e.modify, e.attributes], .written),
        ]
        for (masks, state) in cases {
            let events = Self.events(masks.map { ($0, "a.jpg") })
            #expect(events.states["a.jpg"] == state, "\(masks)")
        }
    }

    @Test func whatIsLookedAtNowAndWhatWaitsForThePass() {
        let e = FolderEvents.self
        let writing = Self.events([(e.create, "a.jpg"), (e.modify, "a.jpg"), (e.attributes, "b.jpg")])
        #expect(!writing.wantsLookNow)
        #expect(writing.change == .names(["a.jpg", "b.jpg"]))
        #expect(writing.closed.isEmpty)
        let arrived = Self.events([(e.create, "a.jpg"), (e.modify, "a.jpg"), (e.movedTo, "c.jpg")])
        #expect(arrived.wantsLookNow)
        #expect(arrived.closed == ["c.jpg"])
        #expect(Self.events([(e.delete, "a.jpg")]).wantsLookNow)
        #expect(FolderEvents().change == .nothing)
        #expect(!FolderEvents().wantsLookNow)
        for mask in [e.overflow, e.ignored, e.deleteSelf, e.moveSelf] {
            let lost = Self.events([(e.modify, "a.jpg"), (mask, "")])
            #expect(lost.change == .everything)
            #expect(lost.wantsLookNow)
        }
    }

    #if canImport(Glibc)
    @Test func aFileOpenForWritingAnywhereIsNotProvenWhole() throws {
        let folder = try TestImages.folder("writer-check")
        let path = folder + "/a.jpg"
        let writer = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        try #require(writer >= 0)
        #expect(write(writer, [1, 2, 3], 3) == 3)
        #expect(WriterCheck.stampIfUnwritten(path) == nil)
        // A second name for the same file (a hard link) is the same file: still open for writing.
        #expect(link(path, folder + "/b.jpg") == 0)
        #expect(WriterCheck.stampIfUnwritten(folder + "/b.jpg") == nil)
        // Open for reading only elsewhere: no writer.
        let reader = open(path, O_RDONLY | O_CLOEXEC)
        close(writer)
        #expect(WriterCheck.stampIfUnwritten(path) == SourceFingerprint.Stamp.read(path))
        #expect(WriterCheck.stampIfUnwritten(folder + "/b.jpg") == SourceFingerprint.Stamp.read(path))
        close(reader)
        #expect(WriterCheck.stampIfUnwritten(folder + "/missing.jpg") == nil)
        #expect(WriterCheck.stampIfUnwritten(folder) == nil)  // a folder is no source
    }

    @Test func theWatcherWakesForAnEventAndNotOtherwise() throws {
        let folder = try TestImages.folder("watcher-wait")
        let watcher = try #require(InotifyWatcher(folder: folder))
        #expect(!watcher.waitForEvents(timeout: 0))
        #expect(FileManager.default.createFile(atPath: folder + "/x.jpg", contents: Data([1])))
        #expect(watcher.waitForEvents(timeout: 5))
        let events = watcher.takeEvents()
        #expect(events.states["x.jpg"] == .closed)  // created, written and closed by one writer
        #expect(!watcher.waitForEvents(timeout: 0))
    }
    #endif
}
