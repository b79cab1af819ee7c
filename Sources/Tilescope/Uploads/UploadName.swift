import Catalog
import Foundation

/// The file name an upload is stored under in the images folder.
///
/// The name the client asked for is only a hint: it is cut to its last path component, stripped
/// of anything but letters, digits, spaces and `-_.()`, never hidden, and given an extension of
/// the format the content really is (so a PNG named `captions.json` becomes `captions.png`). A
/// name that is taken gets `-2`, `-3`... (Its image id cannot collide with another image's: the
/// catalog gives each new name an id no other name ever had, see docs/ids.md.)
public enum UploadName {
    static let maxStemLength = 100
    /// File systems take names of at most 255 bytes (`NAME_MAX`): the stem keeps room for `-{counter}.{ext}`.
    /// One character can be many bytes (a letter with a dozen combining marks), so both bounds hold.
    static let maxStemBytes = 200

    /// The sanitised stem (file name without extension) of a requested name; "upload" when nothing is left.
    public static func stem(of requested: String?) -> (stem: String, extension: String?) {
        let last = (requested ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let cleaned = String(last.map { character -> Character in
            if character.isLetter || character.isNumber || "-_.() ".contains(character) { return character }
            return "_"
        })
        let trimmed = cleaned.trimmingCharacters(in: CharacterSet(charactersIn: ". ~_"))
        var stem = trimmed
        var ext: String?
        if let dot = trimmed.lastIndex(of: ".") {
            stem = String(trimmed[..<dot]).trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            ext = String(trimmed[trimmed.index(after: dot)...]).lowercased()
        }
        stem = bounded(stem)
        return (stem.isEmpty ? "upload" : stem, ext)
    }

    /// The first `maxStemLength` characters of `text` that fit in `maxStemBytes` bytes of UTF-8, whole
    /// characters only.
    static func bounded(_ text: String) -> String {
        var kept = "", bytes = 0
        for character in text.prefix(maxStemLength) {
            bytes += character.utf8.count
            guard bytes <= maxStemBytes else { break }
            kept.append(character)
        }
        return kept
    }

    /// A free name for an upload of `format`: the requested one if it can be had, else a numbered one.
    /// `existing` is every name in the folder.
    public static func choose(requested: String?, format: UploadFormat, existing: Set<String>) -> String {
        let (stem, requestedExtension) = stem(of: requested)
        let ext = requestedExtension.flatMap { format.extensions.contains($0) ? $0 : nil } ?? format.extensions[0]
        let lowercased = Set(existing.map { $0.lowercased() })
        for counter in 1... {
            let candidate = counter == 1 ? "\(stem).\(ext)" : "\(stem)-\(counter).\(ext)"
            if !lowercased.contains(candidate.lowercased()) { return candidate }
        }
        fatalError("unreachable: counters are unbounded")
    }

    /// The `filename` of a `Content-Disposition` value (`attachment; filename="a.png"`), also in its
    /// RFC 5987 form `filename*=UTF-8''a%20b.png`, which wins when both are given.
    public static func fromContentDisposition(_ value: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(value) {
            switch parameter.name {
            case "filename": plain = parameter.value
            case "filename*":
                let parts = parameter.value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3 { extended = String(parts[2]).removingPercentEncoding }
            default: break
            }
        }
        return extended ?? plain
    }

    /// `; name=value` parameters of a header value, values unquoted (`\"` unescaped).
    static func parameters(_ value: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var rest = Substring(value)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop(while: { $0 == " " })
            var text = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { text.append(character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "\"" { break }
                    else { text.append(character) }
                }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                text = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            result.append((name, text))
        }
        return result
    }
}
