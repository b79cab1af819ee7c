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
        return names.filter { name in
            guard !name.hasPrefix("."), !name.hasSuffix("~") else { return false }
            let ext = name.split(separator: ".").count > 1 ? name.split(separator: ".").last!.lowercased() : ""
            guard !ignoredExtensions.contains(ext) else { return false }
            return SourceFingerprint.Stamp.read((folder as NSString).appendingPathComponent(name)) != nil
        }.sorted()
    }
}
