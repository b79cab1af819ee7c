import Catalog
import Foundation

/// The captions sidecars, `captions.json` and `captions.plist` (XML or binary): any bytes give either
/// captions or a `CaptionsError`, and every caption's file name and title are usable.
enum CaptionsTarget {
    static func runJSON(_ bytes: [UInt8]) {
        guard let captions = try? Captions.parseJSON(Data(bytes), file: "captions.json") else { return }
        check(captions)
    }

    static func runPropertyList(_ bytes: [UInt8]) {
        guard let captions = try? Captions.parsePropertyList(Data(bytes), file: "captions.plist") else { return }
        check(captions)
    }

    private static func check(_ captions: Captions) {
        for name in captions.entries.keys {
            _ = captions.title(forFile: name)
            _ = captions.caption(forFile: name)
        }
    }
}
