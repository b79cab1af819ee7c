import Foundation

/// The images folder: which files in it are candidate sources.
///
/// Every regular, non-hidden file is a candidate except sidecars and notes; libvips
/// decides by content whether it can read it, so any format the installed libvips
/// reads works, and a file it cannot read shows up as a failed image with the reason.
public enum SourceFolder {
    static let ignoredExtensions: Set<String> = ["json", "plist", "txt", "md", "xml", "dzi", "tmp", "part"]

    public static func listSources(in folder: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        return names.filter { isSource($0, in: folder) }.sorted()
    }

    /// Whether the file `name` in `folder` is a candidate source now (a regular file of a name not ignored).
    public static func isSource(_ name: String, in folder: String) -> Bool {
        guard isSourceName(name) else { return false }
        return SourceFingerprint.Stamp.read((folder as NSString).appendingPathComponent(name)) != nil
    }

    /// Whether a file of this name would be a candidate (not hidden, not a backup, sidecar or note).
    public static func isSourceName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("~"), !name.contains("/") else { return false }
        let ext = name.split(separator: ".").count > 1 ? name.split(separator: ".").last!.lowercased() : ""
        return !ignoredExtensions.contains(ext)
    }
}
