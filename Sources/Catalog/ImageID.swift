import Foundation

/// URL-safe image ids made from source file names.
///
/// The slug of a name is its stem, transliterated to ASCII ("café ñ" -> "cafe n", "Ærø" -> "aero",
/// "日本" -> "ri ben"), lower-cased, with every run of characters outside `[a-z0-9_]` replaced by
/// one "-" and trimmed of "-" ("Tiger 0.JPG" -> "tiger-0"; an empty slug becomes "image").
/// A slug is only a candidate: `FileIdentities` gives each file its id once, from the candidates
/// `candidates(for:)` lists, and keeps it in the catalog (see docs/ids.md).
public enum ImageID {
    public static func slug(of fileName: String) -> String {
        sanitize(ASCIITransliteration.latin(stem(of: fileName)))
    }

    /// The ids a new file may get, best first: its slug, then slug and extension ("tiger-0-jpg"),
    /// then those followed by a counter ("tiger-0-jpg-2", "-3"...), without end.
    public static func candidates(for fileName: String) -> some Sequence<String> {
        let plain = slug(of: fileName)
        let ext = fileName.contains(".") ? fileName.split(separator: ".").last.map(String.init) ?? "" : ""
        let extSlug = ext.isEmpty ? "" : String(sanitize(ASCIITransliteration.latin(ext)).prefix(20))
        let withExtension = extSlug.isEmpty || extSlug == "image" ? plain + "-file" : plain + "-" + extSlug
        return sequence(state: 0) { (step: inout Int) -> String? in
            defer { step += 1 }
            switch step {
            case 0: return plain
            case 1: return withExtension
            default: return "\(withExtension)-\(step)"
            }
        }
    }

    /// True for strings `candidates` can produce: what a request may name.
    public static func isWellFormed(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 200 && id == sanitize(id, maxLength: 200)
    }

    // MARK: - The ids of catalogs made before ids were kept

    /// The ids every version before the catalog kept them gave a whole folder at once, recomputed
    /// at every scan: ASCII-only slugs (non-ASCII letters dropped), collisions settled in byte
    /// order of the names. Used once, to migrate an existing catalog so that every rating stays
    /// with the file that had its id; never for new files.
    public static func legacyAssign(_ fileNames: [String]) -> [String: String] {
        var ids: [String: String] = [:]
        var taken: Set<String> = []
        let sorted = fileNames.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var bySlug: [String: [String]] = [:]
        for name in sorted { bySlug[legacySlug(of: name), default: []].append(name) }
        for name in sorted where bySlug[legacySlug(of: name)]?.first == name {
            ids[name] = legacySlug(of: name)
            taken.insert(legacySlug(of: name))
        }
        for name in sorted where ids[name] == nil {
            let base = sanitize(legacySlug(of: name) + "-" + (name.split(separator: ".").last.map(String.init) ?? ""))
            var candidate = base
            var counter = 2
            while taken.contains(candidate) {
                candidate = "\(base)-\(counter)"
                counter += 1
            }
            ids[name] = candidate
            taken.insert(candidate)
        }
        return ids
    }

    static func legacySlug(of fileName: String) -> String {
        sanitize(stem(of: fileName))
    }

    // MARK: - Internals

    private static func stem(of fileName: String) -> String {
        let stem = fileName.lastIndex(of: ".").map { String(fileName[..<$0]) } ?? fileName
        return stem.isEmpty ? fileName : stem
    }

    /// `maxLength` bounds a slug; a candidate adds at most an extension and a counter to it.
    private static func sanitize(_ text: String, maxLength: Int = 120) -> String {
        var result = ""
        var pendingDash = false
        for scalar in text.lowercased().unicodeScalars {
            let keep = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
            if keep {
                if pendingDash && !result.isEmpty { result.append("-") }
                pendingDash = false
                result.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        if result.utf8.count > maxLength { result = String(result.prefix(maxLength)) }
        return result.isEmpty ? "image" : result
    }
}
