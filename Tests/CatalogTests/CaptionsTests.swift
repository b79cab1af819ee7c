import Foundation
import Testing
@testable import Catalog

@Suite struct CaptionsTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    func load() throws(CaptionsError) -> Captions {
        try Captions.load(imagesFolder: folder.path)
    }

    func plist(_ value: Any, _ format: PropertyListSerialization.PropertyListFormat) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0)
    }

    // MARK: - Formats

    @Test func noSidecarGivesDerivedTitlesAndNoCaptions() throws {
        let captions = try load()
        #expect(captions.entries.isEmpty)
        #expect(captions.title(forFile: "tiger_0-big.jpg") == "Tiger 0 big")
        #expect(captions.caption(forFile: "tiger_0-big.jpg") == nil)
    }

    @Test func readsCaptionsJSON() throws {
        try folder.write("captions.json", """
            {
              "tiger.jpg": {"title": "Tiger", "caption": "Sumatran tiger, Berlin zoo"},
              "lion.jpg": {"caption": "Only a caption"},
              "owl.jpg": {"title": "Snowy owl", "caption": null, "photographer": "ignored"},
              "emu.jpg": "A plain string is the caption",
              "blank.jpg": {"title": "   ", "caption": ""}
            }
            """)
        let captions = try load()
        #expect(captions.entries.count == 5)
        #expect(captions.title(forFile: "tiger.jpg") == "Tiger")
        #expect(captions.caption(forFile: "tiger.jpg") == "Sumatran tiger, Berlin zoo")
        #expect(captions.title(forFile: "lion.jpg") == "Lion")
        #expect(captions.caption(forFile: "lion.jpg") == "Only a caption")
        #expect(captions.entries["owl.jpg"] == Caption(title: "Snowy owl", caption: nil))
        #expect(captions.caption(forFile: "emu.jpg") == "A plain string is the caption")
        #expect(captions.title(forFile: "blank.jpg") == "Blank")
        #expect(captions.caption(forFile: "blank.jpg") == nil)
        #expect(captions.title(forFile: "Tiger.jpg") == "Tiger") // derived: names match exactly
        #expect(captions.caption(forFile: "Tiger.jpg") == nil)
    }

    /// An XML property list as iOS galleries ship it, written by hand: file name -> description.
    @Test func readsAHandWrittenXMLPropertyList() throws {
        try folder.write("captions.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>tiger_0-big.jpg</key>
                <string>A tiger &amp; its cub</string>
                <key>Émeu.png</key>
                <string>Un émeu</string>
            </dict>
            </plist>
            """)
        let captions = try load()
        #expect(captions.caption(forFile: "tiger_0-big.jpg") == "A tiger & its cub")
        #expect(captions.title(forFile: "tiger_0-big.jpg") == "Tiger 0 big")
        #expect(captions.caption(forFile: "Émeu.png") == "Un émeu")
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func readsPropertyListsFoundationWrites(format: PropertyListSerialization.PropertyListFormat) throws {
        let data = try plist([
            "tiger.jpg": "Sumatran tiger",
            "owl.jpg": ["title": "Snowy owl", "caption": "In the snow"],
        ] as [String: Any], format)
        // The fixture really is in the format under test.
        let magic = String(decoding: data.prefix(8), as: UTF8.self)
        #expect(format == .binary ? magic == "bplist00" : magic.hasPrefix("<?xml"))
        try folder.write("captions.plist", data)

        let captions = try load()
        #expect(captions.entries == [
            "tiger.jpg": Caption(caption: "Sumatran tiger"),
            "owl.jpg": Caption(title: "Snowy owl", caption: "In the snow"),
        ])
        #expect(captions.title(forFile: "tiger.jpg") == "Tiger")
    }

    @Test func withBothSidecarsJSONEntriesReplacePlistEntries() throws {
        try folder.write("captions.plist", try plist(["a.jpg": "from plist", "b.jpg": "from plist"], .binary))
        try folder.write("captions.json", #"{"b.jpg": {"title": "B from JSON"}}"#)
        let captions = try load()
        #expect(captions.caption(forFile: "a.jpg") == "from plist")
        #expect(captions.entries["b.jpg"] == Caption(title: "B from JSON"))
    }

    // MARK: - Errors

    @Test(arguments: [
        ("", "not valid JSON"),
        ("{\"a.jpg\": ", "not valid JSON"),
        ("[\"a.jpg\"]", "found an array"),
        ("\"just text\"", "found a string"),
        ("{\"a.jpg\": 5}", "the entry for \"a.jpg\" must be a string or an object"),
        ("{\"a.jpg\": [\"x\"]}", "the entry for \"a.jpg\" must be a string or an object"),
        ("{\"a.jpg\": {\"title\": 7}}", "\"title\" of \"a.jpg\" must be a string, found a number"),
        ("{\"a.jpg\": {\"caption\": {\"x\": 1}}}", "\"caption\" of \"a.jpg\" must be a string, found a dictionary"),
    ])
    func malformedJSONIsAClearError(text: String, reason: String) throws {
        try folder.write("captions.json", text)
        let error = try #require(throws: CaptionsError.self) { try load() }
        #expect(error.kind == .malformed)
        #expect(error.file == folder.file("captions.json"))
        #expect(error.reason.contains(reason), "\(error.reason)")
        #expect(error.description.hasPrefix("the captions sidecar \(folder.file("captions.json")) is malformed: "))
    }

    @Test func malformedPropertyListsAreClearErrors() throws {
        let cases: [(Data, String)] = [
            (Data("not a plist <".utf8), "not a valid property list"),
            (Data([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xff, 0x00]), "not a valid property list"), // truncated binary
            (try plist(["a.jpg", "b.jpg"], .xml), "found an array"),
            (try plist(["a.jpg": 42], .binary), "the entry for \"a.jpg\" must be a string or an object with \"title\" and \"caption\", found a number"),
            (try plist(["a.jpg": ["title": Date(timeIntervalSince1970: 0)]], .xml), "\"title\" of \"a.jpg\" must be a string, found a date"),
        ]
        for (data, reason) in cases {
            try folder.write("captions.plist", data)
            let error = try #require(throws: CaptionsError.self) { try load() }
            #expect(error.kind == .malformed)
            #expect(error.file == folder.file("captions.plist"))
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test func anUnreadableSidecarIsAnError() throws {
        // A folder where the file should be: unreadable as a file, even for root.
        try FileManager.default.createDirectory(atPath: folder.file("captions.json"), withIntermediateDirectories: false)
        let error = try #require(throws: CaptionsError.self) { try load() }
        #expect(error.kind == .unreadable)
        #expect(error.description.hasPrefix("cannot read the captions sidecar \(folder.file("captions.json"))"))
    }

    // MARK: - Change detection

    @Test func theSidecarSignatureChangesOnEveryKindOfEdit() throws {
        var seen: Set<String> = []
        func signature() -> String { Captions.sidecarSignature(imagesFolder: folder.path) }
        #expect(seen.insert(signature()).inserted)          // none
        try folder.write("captions.json", "{}")
        #expect(seen.insert(signature()).inserted)          // created
        #expect(signature() == signature())                 // stable while untouched
        try folder.write("captions.json", "{\"a.jpg\": \"x\"}")
        #expect(seen.insert(signature()).inserted)          // edited in place
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder.file("captions.json")), options: .atomic)
        #expect(seen.insert(signature()).inserted)          // replaced by rename, same size as before
        try folder.write("captions.plist", try plist([:] as [String: String], .xml))
        #expect(seen.insert(signature()).inserted)          // second sidecar
        try FileManager.default.removeItem(atPath: folder.file("captions.json"))
        #expect(seen.insert(signature()).inserted)          // removed
    }

    // MARK: - Derived titles

    @Test(arguments: [
        ("tiger_0-big.jpg", "Tiger 0 big"),
        ("tiger.jpeg", "Tiger"),
        ("NASA_moon-landing.tif", "NASA moon landing"),
        ("  many__separators--here .png", "Many separators here"),
        ("my.photo.final.png", "My.photo.final"),
        ("no-extension", "No extension"),
        (".hidden", ".hidden"),
        ("élan vital.jpg", "Élan vital"),
        ("2024-05-01_sunset.jpg", "2024 05 01 sunset"),
        ("___.jpg", "___.jpg"),
        ("", ""),
    ])
    func titlesDerivedFromFileNames(fileName: String, title: String) {
        #expect(Captions.derivedTitle(forFile: fileName) == title)
    }
}
