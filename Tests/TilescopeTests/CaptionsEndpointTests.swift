import Foundation
import TestSupport
import Imaging
import Testing
@testable import Tilescope

/// Titles and captions from `captions.json` / `captions.plist` in the images folder, through the
/// API, and edits to them picked up while the server runs.
@Suite(.serialized) struct CaptionsEndpointTests {
    // The images are written before the server (which starts libvips) exists.
    init() throws { try Vips.start() }

    static func entries(_ server: TestServer) throws -> [String: [String: Any]] {
        let list = try #require(try server.get("/api/images").json?["images"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as! String, $0) })
    }

    /// Polls until `condition` holds for the image list (the rescan runs every second).
    static func waitFor(_ server: TestServer, timeout: Double = 15,
                        _ condition: ([String: [String: Any]]) -> Bool) throws -> [String: [String: Any]] {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            let entries = try entries(server)
            if condition(entries) { return entries }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("condition not met after \(timeout) s: \(try entries(server))")
    }

    static func write(_ text: String, to path: String) throws {
        // Write aside and rename, as editors do, so a poll never reads half a file.
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + ".tmp"))
        #expect(rename(path + ".tmp", path) == 0)
    }

    @Test func jsonCaptionsThroughTheAPI() throws {
        let server = try TestServer(label: "captions-json") { folder in
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/tiger_0-big.png")
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/moon.png")
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/plain_file.png")
            try Self.write(#"""
                {"tiger_0-big.png": {"title": "Sumatran tiger", "caption": "Resting in the shade"},
                 "moon.png": "Only a caption"}
                """#, to: folder + "/captions.json")
        }
        let entries = try Self.entries(server)
        #expect(entries["tiger_0-big"]?["title"] as? String == "Sumatran tiger")
        #expect(entries["tiger_0-big"]?["caption"] as? String == "Resting in the shade")
        #expect(entries["moon"]?["title"] as? String == "Moon")
        #expect(entries["moon"]?["caption"] as? String == "Only a caption")
        #expect(entries["plain_file"]?["title"] as? String == "Plain file")
        #expect(entries["plain_file"]?["caption"] == nil)
        #expect(try server.get("/api/images/tiger_0-big").json?["title"] as? String == "Sumatran tiger")
        #expect(entries.count == 3)  // the sidecar is not an image
    }

    @Test func propertyListCaptionsThroughTheAPI() throws {
        let server = try TestServer(label: "captions-plist") { folder in
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/IMG_0001.png")
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/IMG_0002.png")
            let plist: [String: Any] = ["IMG_0001.png": "Golden Gate at sunrise",
                                        "IMG_0002.png": ["title": "Alcatraz", "caption": "From the ferry"]]
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
            try data.write(to: URL(fileURLWithPath: folder + "/captions.plist"))
        }
        let entries = try Self.entries(server)
        #expect(entries["img_0001"]?["caption"] as? String == "Golden Gate at sunrise")
        #expect(entries["img_0001"]?["title"] as? String == "IMG 0001")
        #expect(entries["img_0002"]?["title"] as? String == "Alcatraz")
        #expect(entries["img_0002"]?["caption"] as? String == "From the ferry")
    }

    @Test func sidecarEditsArePickedUpLiveAndABrokenEditKeepsTheLastGoodCaptions() throws {
        let server = try TestServer(label: "captions-live") { folder in
            try TestImages.writePNG(width: 40, height: 40, to: folder + "/harbour.png")
        }
        let sidecar = server.images + "/captions.json"
        #expect(try Self.entries(server)["harbour"]?["title"] as? String == "Harbour")

        try Self.write(#"{"harbour.png": {"title": "Harbour at dusk", "caption": "First version"}}"#, to: sidecar)
        _ = try Self.waitFor(server) { $0["harbour"]?["title"] as? String == "Harbour at dusk" }

        try Self.write(#"{"harbour.png": {"title": "Harbour at dawn", "caption": "Second version"}}"#, to: sidecar)
        let edited = try Self.waitFor(server) { $0["harbour"]?["title"] as? String == "Harbour at dawn" }
        #expect(edited["harbour"]?["caption"] as? String == "Second version")

        // A broken save is logged and ignored: the last good captions stay.
        let rejectedBefore = server.service.captions.rejectedVersions
        try Self.write(#"{"harbour.png": {"title": "#, to: sidecar)
        // Wait until a rescan has read the broken file and refused it, then check nothing changed.
        let end = Date().addingTimeInterval(30)
        while server.service.captions.rejectedVersions == rejectedBefore && Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        #expect(server.service.captions.rejectedVersions == rejectedBefore + 1)
        #expect(try Self.entries(server)["harbour"]?["title"] as? String == "Harbour at dawn")

        // Fixing it is picked up; removing the sidecar brings back the derived title.
        try Self.write(#"{"harbour.png": "Fixed"}"#, to: sidecar)
        let fixed = try Self.waitFor(server) { $0["harbour"]?["caption"] as? String == "Fixed" }
        #expect(fixed["harbour"]?["title"] as? String == "Harbour")
        #expect(unlink(sidecar) == 0)
        _ = try Self.waitFor(server) { $0["harbour"]?["caption"] == nil }
    }
}
