import Foundation

/// Which sources are served from their own levels and which are built: `--pyramidal-sources` for every file, and
/// a rule of its own for any file named in the images folder's sidecar `pyramidal-sources.json`. The images folder
/// is flat, so a rule per folder is a rule per file:
///
///     {"atlas.tif": "build", "scan-0042.svs": "direct"}
///
/// Each value is `auto`, `build` or `direct`; a name not in the file takes the setting. The sidecar is read when a
/// file is published (and when an over-limit pyramid is checked), so a change applies to files published after it.
/// A sidecar that cannot be read or parsed is reported in the log and ignored: every file then takes the setting.
struct SourceServingRules: Sendable {
    let imagesFolder: String
    /// `--pyramidal-sources`: the rule of every file the sidecar does not name.
    let setting: PyramidalSourcesMode
    let log: @Sendable (String) -> Void

    static let sidecarName = "pyramidal-sources.json"
    /// Larger than any list of rules an operator writes by hand or by script for a folder of slides.
    static let maxSidecarBytes = 4 << 20
    /// A file name longer than this is no file's (255 bytes on every Linux file system).
    static let maxNameBytes = 255

    /// The rule in force for `fileName`, and where it comes from (the sidecar's name or the setting's).
    struct Rule: Equatable, Sendable {
        var mode: PyramidalSourcesMode
        var from: String
    }

    func rule(forFile fileName: String) -> Rule {
        do {
            if let mode = try Self.rules(in: imagesFolder + "/" + Self.sidecarName)[fileName] {
                return Rule(mode: mode, from: Self.sidecarName)
            }
        } catch {
            log("\(Self.sidecarName) is ignored, every file takes --pyramidal-sources \(setting.rawValue): \(error)")
        }
        return Rule(mode: setting, from: "--pyramidal-sources")
    }

    /// The rules of the sidecar at `path` (none when there is no sidecar); throws what is wrong with it.
    static func rules(in path: String) throws -> [String: PyramidalSourcesMode] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [:] }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: maxSidecarBytes + 1) ?? Data()
        guard data.count <= maxSidecarBytes else { throw RulesError("it is larger than \(maxSidecarBytes) bytes") }
        return try parse(data)
    }

    /// `{"name": "auto"|"build"|"direct", ...}`; anything else is an error that says where.
    static func parse(_ data: Data) throws -> [String: PyramidalSourcesMode] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw RulesError("it is not valid JSON")
        }
        guard let object = root as? [String: Any] else {
            throw RulesError("it must be an object of file names to \"auto\", \"build\" or \"direct\"")
        }
        var rules: [String: PyramidalSourcesMode] = [:]
        for (name, value) in object {
            let shown = String(name.prefix(80))
            guard !name.isEmpty, name.utf8.count <= maxNameBytes, !name.contains("/") else {
                throw RulesError("\"\(shown)\" is not the name of a file in the images folder")
            }
            guard let text = value as? String, let mode = PyramidalSourcesMode(rawValue: text) else {
                throw RulesError("the rule of \"\(shown)\" must be \"auto\", \"build\" or \"direct\"")
            }
            rules[name] = mode
        }
        return rules
    }

    struct RulesError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
