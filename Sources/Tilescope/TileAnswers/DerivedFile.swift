import Foundation
import Imaging

/// Writes a file derived from a pyramid (an IIIF tile, a WebP or AVIF Deep Zoom tile) into its
/// version's folder so that every later request can `sendfile` it.
///
/// Atomic and durable (`AtomicFile`): the bytes go to a temporary file, are fsynced (unless the readers check
/// the file, `StoredTileCheck`), then renamed into place, so a
/// reader sees the whole file or none (a file renamed with its data still in the page cache can be
/// empty after a power cut, and would then be served with a year of caching). fsync costs about
/// 0.2 ms here, once per file. Version-safe: only inside an existing version folder, whose missing
/// subfolders are made one by one (never the version folder itself): when the source has changed and
/// its old folder is gone, nothing is written, so no old version's pixels are ever stored where they
/// could be served again. A failure to store (a full disk, say) is not an error of the request: it only
/// costs the next request a render, which tries to store the tile again.
///
/// On the first pass of a viewer over new IIIF tiles this runs once per tile, so it stays at the
/// system calls: a `FileManager` folder check, a UUID and `NSString` path work cost 4-5 % of such a
/// tile's CPU (docs/benchmarks.md).
enum DerivedFile {
    /// `synced: false` skips the fsync, for files whose readers check that they are whole
    /// (`StoredTileCheck`) and remake them otherwise. Whether the file is now in place.
    @discardableResult
    static func publish(_ bytes: [UInt8], at path: String, versionFolder: String, synced: Bool = true) -> Bool {
        var info = stat()
        guard stat(versionFolder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR,
              let inside = relativePath(of: path, in: versionFolder) else { return false }
        let durability: AtomicFile.Durability = synced ? .file : .none
        do {
            try AtomicFile.publish(bytes, at: path, durability: durability)
            return true
        } catch let failure as AtomicFile.Failure where failure.isMissingFolder {
            guard makeFolders(leadingTo: inside, in: versionFolder) else { return false }
            return (try? AtomicFile.publish(bytes, at: path, durability: durability)) != nil
        } catch {
            return false
        }
    }

    /// `path` below `folder` ("iiif/12/3_4.jpg"), or nil when it is not inside it.
    static func relativePath(of path: String, in folder: String) -> Substring? {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard path.utf8.starts(with: prefix.utf8), path.utf8.count > prefix.utf8.count else { return nil }
        let inside = Substring(path.utf8.dropFirst(prefix.utf8.count))  // after a "/": a scalar boundary
        // No way out of the folder and no empty component: every caller builds these paths itself.
        guard !inside.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { return nil }
        return inside
    }

    /// Makes each folder between `folder` and the file `inside` names, outermost first, with plain
    /// `mkdir` (not recursive: a version folder removed meanwhile is not made again, the first `mkdir` fails).
    private static func makeFolders(leadingTo inside: Substring, in folder: String) -> Bool {
        var current = folder
        for component in inside.split(separator: "/").dropLast() {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
