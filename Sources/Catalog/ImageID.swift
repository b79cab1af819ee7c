/// Stable, URL-safe image ids derived from source file names.
///
/// The slug of a name is its stem, lower-cased, with every run of characters outside
/// `[a-z0-9_]` replaced by one "-", trimmed of "-" ("Tiger 0.JPG" -> "tiger-0"; an empty
/// slug becomes "image"). When several files share a slug, they are ordered by file name
/// (byte order); the first keeps the slug, the next ones get "-" and their extension,
/// then a counter if even that collides ("tiger.jpg" -> "tiger", "tiger.png" -> "tiger-png").
/// The ids depend only on the folder's file names, so every replica computes the same ones.
public enum ImageID {
    public static func slug(of fileName: String) -> String {
        let stem = fileName.lastIndex(of: ".").map { String(fileName[..<$0]) } ?? fileName
        return sanitize(stem.isEmpty ? fileName : stem)
    }

    /// Ids for a set of file names, deterministic whatever order they are given in.
    public static func assign(_ fileNames: [String]) -> [String: String] {
        var ids: [String: String] = [:]
        var taken: Set<String> = []
        let sorted = fileNames.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        var bySlug: [String: [String]] = [:]
        for name in sorted { bySlug[slug(of: name), default: []].append(name) }
        // First pass: each slug's first file keeps it, so later names never steal a plain slug.
        for name in sorted where bySlug[slug(of: name)]?.first == name {
            ids[name] = slug(of: name)
            taken.insert(slug(of: name))
        }
        for name in sorted where ids[name] == nil {
            let base = sanitize(slug(of: name) + "-" + (name.split(separator: ".").last.map(String.init) ?? ""))
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

    /// True for strings `slug` can produce: what a request may name.
    public static func isWellFormed(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 200 && id == sanitize(id)
    }

    private static func sanitize(_ text: String) -> String {
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
        if result.utf8.count > 120 { result = String(result.prefix(120)) }
        return result.isEmpty ? "image" : result
    }
}
