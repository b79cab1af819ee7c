import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// A rule per file for sources that already are pyramids (`pyramidal-sources.json` in the images folder beside
/// `--pyramidal-sources`): parsed strictly, and applied end to end over real HTTP: a pyramid the sidecar says to
/// build is built, a pyramid it does not name takes the setting, and a plain image it says to serve directly is
/// refused with the reason rather than copied into a pyramid.
@Suite struct SourceServingRulesTests {
    @Test func theSidecarIsReadStrictly() throws {
        let rules = try SourceServingRules.parse(Data(#"{"a.tif": "build", "b.svs": "direct", "c.jp2": "auto"}"#.utf8))
        #expect(rules == ["a.tif": .build, "b.svs": .direct, "c.jp2": .auto])
        for (text, says) in [
            (#"{"a.tif": "copy"}"#, #"the rule of "a.tif" must be"#),
            (#"{"a.tif": 1}"#, #"the rule of "a.tif" must be"#),
            (#"{"../a.tif": "build"}"#, "is not the name of a file"),
            (#"{"": "build"}"#, "is not the name of a file"),
            (#"["a.tif"]"#, "must be an object"),
            ("{", "not valid JSON"),
        ] {
            #expect(throws: SourceServingRules.RulesError.self, "\(text)") { try SourceServingRules.parse(Data(text.utf8)) }
            do {
                _ = try SourceServingRules.parse(Data(text.utf8))
            } catch {
                #expect("\(error)".contains(says), "\(text): \(error)")
            }
        }
    }

    @Test func aFileTheSidecarDoesNotNameOrABrokenSidecarTakesTheSetting() throws {
        let folder = try TestImages.folder("serving-rules")
        let logged = LockedLines()
        let rules = SourceServingRules(imagesFolder: folder, setting: .build, log: { logged.append($0) })
        #expect(rules.rule(forFile: "a.tif") == .init(mode: .build, from: "--pyramidal-sources"))
        try Data(#"{"a.tif": "direct"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/pyramidal-sources.json"))
        #expect(rules.rule(forFile: "a.tif") == .init(mode: .direct, from: "pyramidal-sources.json"))
        #expect(rules.rule(forFile: "b.tif") == .init(mode: .build, from: "--pyramidal-sources"))
        try Data(#"{"a.tif": "fast"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/pyramidal-sources.json"))
        #expect(rules.rule(forFile: "a.tif") == .init(mode: .build, from: "--pyramidal-sources"))
        #expect(logged.lines.contains { $0.contains("pyramidal-sources.json is ignored") && $0.contains("a.tif") }, "\(logged.lines)")
    }

    @Test func eachFileGetsItsRuleOverHTTP() throws {
        let server = try TestServer(label: "serving-rules-http") { folder in
            let plain = folder + "/../plain.png"
            try SmoothImages.writePNG(width: 1200, height: 900, to: plain, seed: 11)
            for name in ["named.tif", "unnamed.tif"] {
                let made = try Command.run("/usr/bin/vips", ["tiffsave", plain, folder + "/" + name, "--tile", "--pyramid",
                                                             "--compression", "jpeg", "--tile-width", "256", "--tile-height", "256"])
                guard made.status == 0 else { throw TestFailure("vips tiffsave: \(made.output)") }
            }
            try TestImages.writeJPEG(width: 640, height: 480, to: folder + "/photo.jpg", seed: 5)
            try Data(#"{"named.tif": "build", "photo.jpg": "direct"}"#.utf8)
                .write(to: URL(fileURLWithPath: folder + "/pyramidal-sources.json"))
        }
        try server.waitUntilBuilt()
        let named = try #require(try server.get("/api/images/named").json)
        #expect(named["status"] as? String == "ready" && named["served"] as? String == "built", "\(named)")
        let unnamed = try #require(try server.get("/api/images/unnamed").json)
        #expect(unnamed["status"] as? String == "ready" && unnamed["served"] as? String == "direct", "\(unnamed)")
        let photo = try #require(try server.get("/api/images/photo").json)
        #expect(photo["status"] as? String == "failed", "\(photo)")
        let reason = try #require(photo["reason"] as? String)
        #expect(reason.contains("pyramidal-sources.json says direct") && reason.contains("not a pyramid"), "\(reason)")
        // What each got is served: a built tile and a tile cut from the source, both JPEG.
        for id in ["named", "unnamed"] {
            let tile = try server.get("/dzi/\(id)_files/11/0_0.jpeg")
            #expect(tile.status == 200 && tile.body.starts(with: [0xFF, 0xD8]), "\(id): \(tile.status)")
        }
        #expect(try server.get("/dzi/photo_files/0/0_0.jpeg").status != 200)
    }
}

/// Lines logged from any thread, for a test to read.
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
