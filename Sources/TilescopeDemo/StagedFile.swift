import Foundation

/// Writes a file under a hidden temporary name beside its final one, then renames it
/// into place: an interrupted run leaves no half-written file under the final name.
enum StagedFile {
    /// Runs `write` with a temporary path, then renames the result to `path`.
    /// Leftovers of earlier interrupted runs are removed first.
    static func write(_ path: String, _ write: (_ temporaryPath: String) throws -> Void) throws {
        removeLeftovers(of: path)
        let temporary = temporaryPath(for: path, process: getpid())
        do {
            try write(temporary)
            guard rename(temporary, path) == 0 else {
                throw DemoGalleryError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// `folder/.name.PID.partial`: hidden, so folder scanners that skip dot files never
    /// see it, and in the same folder, so the rename is atomic.
    static func temporaryPath(for path: String, process: Int32) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(process).partial").path
    }

    static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent).", suffix = ".partial"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }
}
