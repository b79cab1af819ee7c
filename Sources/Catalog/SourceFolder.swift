import Foundation

/// The images folder: which files in it are candidate sources.
///
/// Every regular, non-hidden file is a candidate except sidecars and notes; libvips
/// decides by content whether it can read it, so any format the installed libvips
/// reads works, and a file it cannot read shows up as a failed image with the reason.
public enum SourceFolder {
    static let ignoredExtensions: Set<String> = ["json", "plist", "txt", "md", "xml", "dzi", "tmp", "part"]

    /// The candidate sources in `folder`, sorted. The directory's own entry types say which are regular
    /// files, so a folder of 100,000 files costs no `stat` each (about half a second of a first scan);
    /// a symbolic link, or a filesystem that does not say, is asked with `stat` as before.
    public static func listSources(in folder: String) throws -> [String] {
        guard let directory = opendir(folder) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: folder])
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let type = entry.pointee.d_type
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard isSourceName(name) else { continue }
            switch Int32(type) {
            case Int32(DT_REG): names.append(name)
            case Int32(DT_LNK), Int32(DT_UNKNOWN): if isSource(name, in: folder) { names.append(name) }
            default: continue  // a folder, a device, a socket: never a source
            }
        }
        return names.sorted()
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
