import Foundation

/// Creates, before libvips runs, every folder a dzsave into `basename` writes into: the output's
/// parent, `<basename>_files` and one folder per level, `<basename>_files/0` to `/<maxLevel>`.
///
/// libvips 8.14 (Debian's) aborts the whole process when dzsave cannot create one of its folders
/// (a GLib assertion, `dir->out` in `vips_gsf_dir_new`): a staging area that cannot be written
/// (a regular file where a folder goes, permissions, a read-only or full disk, no inodes left)
/// would kill the server instead of failing one build. dzsave (through libgsf) accepts folders
/// that already exist, so once they all exist it never has to mkdir, and a failure here is a
/// thrown error naming the path and the system's reason. Writing a tile into a folder that exists
/// but cannot be written fails dzsave cleanly (libvips reports it; measured: exit 1, no abort).
enum PyramidFolders {
    /// Throws a `VipsError` naming the first folder that cannot be created or is not a folder.
    static func prepare(basename: String, maxLevel: Int) throws {
        let tiles = basename + "_files"
        try ensureFolder((basename as NSString).deletingLastPathComponent)
        try ensureFolder(tiles)
        for level in 0...max(0, maxLevel) { try ensureFolder("\(tiles)/\(level)") }
    }

    /// mkdir, accepting a folder that is already there and nothing else (EEXIST is also what a
    /// regular file in the way gives).
    static func ensureFolder(_ path: String) throws {
        if mkdir(path, 0o777) == 0 { return }
        let reason = errno
        if reason == EEXIST, isFolder(path) { return }
        let text = reason == EEXIST ? "it exists and is not a folder" : String(cString: strerror(reason))
        throw VipsError(message: "cannot create the pyramid folder \(path): \(text)")
    }

    private static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
