/// Titles for images without a caption sidecar entry.
public enum Titles {
    /// The file's stem with "_" and "-" as spaces and the first letter capitalised:
    /// "tiger_0-big.jpg" -> "Tiger 0 big".
    public static func derived(from fileName: String) -> String {
        let stem = fileName.lastIndex(of: ".").map { String(fileName[..<$0]) } ?? fileName
        let words = stem.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == " " }).joined(separator: " ")
        guard let first = words.first else { return fileName }
        return first.uppercased() + words.dropFirst()
    }
}
