import Foundation

/// The titles and captions of the images in a folder, keyed by file name, read from a sidecar file there.
///
/// Two sidecar formats are read:
/// - `captions.json`: `{"tiger.jpg": {"title": "...", "caption": "..."}}` (either key may be
///   missing or null; other keys are ignored). A plain string value is taken as the caption.
/// - `captions.plist`, an Apple property list (XML or binary) mapping file names to description
///   strings, as iOS photo galleries ship them: the string is the caption. A dictionary value with
///   `title` and `caption` keys is read as in the JSON format.
///
/// With both present, both are read and a file's JSON entry replaces its plist entry. Without a
/// title, a file's title is derived from its name (`derivedTitle(forFile:)`).
public struct Captions: Hashable, Sendable {
    public static let jsonFileName = "captions.json"
    public static let propertyListFileName = "captions.plist"
    public static let sidecarFileNames = [propertyListFileName, jsonFileName]

    /// By file name, exactly as it appears in the folder.
    public let entries: [String: Caption]

    public init(entries: [String: Caption] = [:]) {
        self.entries = entries
    }

    /// The sidecar's title for `fileName`, else one derived from the name.
    public func title(forFile fileName: String) -> String {
        entries[fileName]?.title ?? Self.derivedTitle(forFile: fileName)
    }

    /// The sidecar's access rule for `fileName`, nil when it gives none (the setting decides).
    public func access(forFile fileName: String) -> ImageAccess? {
        entries[fileName]?.access
    }

    /// The sidecar's caption for `fileName`, nil when it has none.
    public func caption(forFile fileName: String) -> String? {
        entries[fileName]?.caption
    }

    // MARK: - Loading

    /// Reads the sidecars in `imagesFolder`. No sidecar is not an error: it gives empty captions.
    public static func load(imagesFolder: String) throws(CaptionsError) -> Captions {
        let folder = URL(fileURLWithPath: imagesFolder)
        var entries: [String: Caption] = [:]
        let plistPath = folder.appendingPathComponent(propertyListFileName).path
        if let data = try read(plistPath) {
            entries = try parsePropertyList(data, file: plistPath).entries
        }
        let jsonPath = folder.appendingPathComponent(jsonFileName).path
        if let data = try read(jsonPath) {
            entries.merge(try parseJSON(data, file: jsonPath).entries) { _, json in json }
        }
        return Captions(entries: entries)
    }

    /// Parses the `captions.json` format; `file` names the source in errors.
    public static func parseJSON(_ data: Data, file: String) throws(CaptionsError) -> Captions {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw CaptionsError(.malformed, file: file, reason: "not valid JSON (\(Self.detail(of: error)))")
        }
        return try captions(from: root, file: file)
    }

    /// Parses a `captions.plist` property list, XML or binary; `file` names the source in errors.
    public static func parsePropertyList(_ data: Data, file: String) throws(CaptionsError) -> Captions {
        let root: Any
        do {
            root = try PropertyListValue.parse(data)
        } catch {
            throw CaptionsError(.malformed, file: file, reason: "not a valid property list (\(Self.detail(of: error)))")
        }
        return try captions(from: root, file: file)
    }

    /// A value that changes whenever a sidecar is created, removed, replaced or edited (inode,
    /// size and modification time of each), read with `stat` only: cheap enough to poll every
    /// second to decide whether to `load` again.
    public static func sidecarSignature(imagesFolder: String) -> String {
        let folder = URL(fileURLWithPath: imagesFolder)
        return sidecarFileNames.map { name in
            var info = stat()
            guard stat(folder.appendingPathComponent(name).path, &info) == 0 else { return "\(name):-" }
            return "\(name):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }.joined(separator: "|")
    }

    // MARK: - Titles

    /// The title shown for a file the sidecar gives no title:
    /// 1. drop the extension (from the last dot, unless the name starts with it);
    /// 2. turn underscores and hyphens into spaces, collapse runs of white space, trim;
    /// 3. upper-case the first letter, leave the rest as written.
    /// "tiger_0-big.jpg" -> "Tiger 0 big"; "NASA_moon.tif" -> "NASA moon". A name that leaves
    /// nothing ("___.jpg") is its own title.
    public static func derivedTitle(forFile fileName: String) -> String {
        var stem = Substring(fileName)
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex {
            stem = stem[..<dot]
        }
        let spaced = String(stem.map { (character: Character) -> Character in
            character == "_" || character == "-" ? " " : character
        })
        let joined = spaced.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard let first = joined.first else { return fileName }
        return first.uppercased() + joined.dropFirst()
    }

    // MARK: - Internals

    /// The file's bytes, nil when there is no such file.
    private static func read(_ path: String) throws(CaptionsError) -> Data? {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch CocoaError.fileReadNoSuchFile {
            return nil
        } catch {
            throw CaptionsError(.unreadable, file: path, reason: detail(of: error))
        }
    }

    private static func captions(from root: Any, file: String) throws(CaptionsError) -> Captions {
        guard let dictionary = root as? [String: Any] else {
            throw CaptionsError(.malformed, file: file,
                                reason: "the top level must map file names to captions, found \(kind(of: root))")
        }
        var entries: [String: Caption] = [:]
        for (fileName, value) in dictionary {
            entries[fileName] = try caption(from: value, fileName: fileName, file: file)
        }
        return Captions(entries: entries)
    }

    private static func caption(from value: Any, fileName: String, file: String) throws(CaptionsError) -> Caption {
        if let text = value as? String { return Caption(caption: text) }
        guard let fields = value as? [String: Any] else {
            throw CaptionsError(.malformed, file: file,
                                reason: "the entry for \"\(fileName)\" must be a string or an object with \"title\" and \"caption\", found \(kind(of: value))")
        }
        func field(_ key: String) throws(CaptionsError) -> String? {
            guard let value = fields[key], !(value is NSNull) else { return nil }
            guard let text = value as? String else {
                throw CaptionsError(.malformed, file: file,
                                    reason: "\"\(key)\" of \"\(fileName)\" must be a string, found \(kind(of: value))")
            }
            return text
        }
        let access: ImageAccess?
        if let text = try field("access") {
            guard let rule = ImageAccess(rawValue: text) else {
                throw CaptionsError(.malformed, file: file,
                                    reason: "\"access\" of \"\(fileName)\" must be \"public\" or \"private\", found \"\(text.prefix(40))\"")
            }
            access = rule
        } else {
            access = nil
        }
        return Caption(title: try field("title"), caption: try field("caption"), access: access)
    }

    private static func kind(of value: Any) -> String {
        switch value {
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        case is NSNull: "null"
        case is Bool, is NSNumber: "a number"
        case is Date: "a date"
        case is Data: "data"
        default: "\(type(of: value))"
        }
    }

    private static func detail(of error: any Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}
