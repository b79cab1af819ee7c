import Foundation

/// A fresh folder under the system temp folder, removed with everything in it when the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/catalog-tests-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSDebugDescriptionErrorKey: "mkdtemp failed: errno \(errno)"])
        }
        path = String(cString: created)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String {
        URL(fileURLWithPath: path).appendingPathComponent(name).path
    }

    func write(_ name: String, _ data: Data) throws {
        try data.write(to: URL(fileURLWithPath: file(name)))
    }

    func write(_ name: String, _ text: String) throws {
        try write(name, Data(text.utf8))
    }
}
