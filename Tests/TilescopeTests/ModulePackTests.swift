import Foundation
import HTTPServer
import Testing
@testable import Tilescope

/// The module pack (`GET /js/modules.json`) from a public folder of its own: every regular `.js` file under `js/`,
/// nothing else (no link out of the folder, no dot-led name, no other kind of file), made again when a file changes.
/// The real client's pack is checked over HTTP in Chromium (Tests/browser/test_module_pack.py).
@Suite struct ModulePackTests {
    private func folder() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pack-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/js/ui", withIntermediateDirectories: true)
        try "export const a = 1;\n".write(toFile: root + "/js/a.js", atomically: true, encoding: .utf8)
        try "import { a } from '../a.js';\nexport const b = a;\n".write(toFile: root + "/js/ui/b.js", atomically: true,
                                                                      encoding: .utf8)
        try "hidden".write(toFile: root + "/js/.c.js", atomically: true, encoding: .utf8)
        try "{}".write(toFile: root + "/js/d.json", atomically: true, encoding: .utf8)
        try "outside".write(toFile: root + "/outside.js", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/js/link.js", withDestinationPath: root + "/outside.js")
        return root
    }

    private func pack(_ response: Response) throws -> [String: String] {
        try #require(response.status == 200)
        guard case .shared(let bytes) = response.body else { throw PackError.notShared }
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes.bytes)) as? [String: String])
    }

    private enum PackError: Error { case notShared }

    @Test func holdsEveryModuleFileAndNothingElse() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let response = try #require(try ModulePack().answer(publicFolder: root, request: Request(method: "GET", rawPath: "/js/modules.json")))
        #expect(try pack(response) == ["js/a.js": "export const a = 1;\n",
                                       "js/ui/b.js": "import { a } from '../a.js';\nexport const b = a;\n"])
        #expect(response.header("Content-Type") == "application/json")
    }

    @Test func isMadeAgainWhenAFileChangesAndAnswers304ForTheCopyAClientHolds() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let modules = ModulePack()
        let plain = Request(method: "GET", rawPath: "/js/modules.json")
        let first = try #require(try modules.answer(publicFolder: root, request: plain))
        let tag = try #require(first.headers.first { $0.name == "ETag" }?.value)
        let held = Request(method: "GET", rawPath: "/js/modules.json", headers: ["if-none-match": tag])
        #expect(try modules.answer(publicFolder: root, request: held)?.status == 304)
        try "export const a = 2;\n".write(toFile: root + "/js/a.js", atomically: true, encoding: .utf8)
        let second = try #require(try modules.answer(publicFolder: root, request: held))
        #expect(second.status == 200)
        #expect(try pack(second)["js/a.js"] == "export const a = 2;\n")
        #expect(second.headers.first { $0.name == "ETag" }?.value != tag)
    }

    @Test func comesCompressedToAClientThatTakesDeflate() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let modules = ModulePack()
        let plain = try #require(try modules.answer(publicFolder: root, request: Request(method: "GET", rawPath: "/js/modules.json")))
        let compressed = try #require(try modules.answer(publicFolder: root, request: Request(
            method: "GET", rawPath: "/js/modules.json", headers: ["accept-encoding": "gzip, deflate"])))
        // A pack this small may not shrink: then it goes as it is, and says nothing of deflate.
        if compressed.headers.contains(where: { $0.name == "Content-Encoding" }) {
            #expect(compressed.headers.contains { $0.name == "Content-Encoding" && $0.value == "deflate" })
            #expect(compressed.headers.first { $0.name == "ETag" }?.value != plain.headers.first { $0.name == "ETag" }?.value)
        }
    }

    @Test func aFolderWithoutModulesHasNoPack() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pack-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/js", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try ModulePack().answer(publicFolder: root, request: Request(method: "GET", rawPath: "/js/modules.json")) == nil)
        #expect(try ModulePack().answer(publicFolder: root + "/missing", request: Request(method: "GET", rawPath: "/")) == nil)
    }

    @Test func commentLinesAreLeftBlankAndEveryOtherLineKeepsItsNumber() {
        let source = """
            /**
             * A module. `ui` names it.
             */
            import { a } from './a.js';
            // a line comment
              // an indented one
            const url = 'https://example.com/'; // a trailing comment stays
            /* one line */
            export const b = a;
            """
        let expected = """



            import { a } from './a.js';


            const url = 'https://example.com/'; // a trailing comment stays

            export const b = a;
            """
        #expect(ModulePack.blankingCommentLines(source) == expected)
    }

    @Test func aTemplateLiteralAcrossLinesIsLeftAsItIs() {
        let source = "const html = `\n  // not a comment here\n  /* nor here */\n`;\n// but here\nconst c = 1;"
        #expect(ModulePack.blankingCommentLines(source)
            == "const html = `\n  // not a comment here\n  /* nor here */\n`;\n\nconst c = 1;")
    }

    @Test func aSourceItCannotFollowIsLeftWhole() {
        // Code after a block's end, a block never closed, a backtick count that never comes back even.
        for source in ["/* a\n b */ const c = 1;\n// d", "/* a\n// b", "const s = '`';\n// c"] {
            #expect(ModulePack.blankingCommentLines(source) == source)
        }
    }

    @Test func aPackOfEntriesIsTheirStaticGraphAndNothingOutsideTheFolder() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "import { b } from './ui/b.js';\nconst later = () => import('./e.js');\n"
            .write(toFile: root + "/js/main.js", atomically: true, encoding: .utf8)
        try "export const e = 1;\n".write(toFile: root + "/js/e.js", atomically: true, encoding: .utf8)
        let request = Request(method: "GET", rawPath: "/js/modules.json", query: ["entries": "js/main.js"])
        let response = try #require(try ModulePack().answer(publicFolder: root, request: request))
        // main.js, what it imports statically (b.js, and a.js through it), not what it imports on demand (e.js).
        #expect(try pack(response).keys.sorted() == ["js/a.js", "js/main.js", "js/ui/b.js"])
        #expect(ModulePack.resolved("../../../x.js", from: "js/ui/b.js") == nil)
        #expect(ModulePack.resolved("../a.js", from: "js/ui/b.js") == "js/a.js")
        #expect(throws: APIError.self) {
            try ModulePack().answer(publicFolder: root, request: Request(
                method: "GET", rawPath: "/js/modules.json", query: ["entries": "js/nothing.js"]))
        }
    }
}
