import Foundation
import Imaging

/// Writes a demo image under a hidden temporary name beside its final one, then renames it into place
/// (`AtomicFile`): an interrupted run leaves no half-written file under the final name, and the server,
/// which may be scanning the folder meanwhile, never sees one.
enum StagedFile {
    /// Runs `write` with a temporary path, then publishes the result at `path`, fsynced: a demo image
    /// renamed with its data still in the page cache could read back empty after a power cut, and a later
    /// run, which skips the images that exist, would never write it again.
    /// Leftovers of earlier interrupted runs are removed first.
    static func write(_ path: String, _ write: (_ temporaryPath: String) throws -> Void) throws {
        removeLeftovers(of: path)
        do {
            try AtomicFile.publish(at: path, durability: .file, write: write)
        } catch let failure as AtomicFile.Failure {
            throw DemoGalleryError.cannotWrite(path: path, reason: failure.description)
        }
    }

    static func removeLeftovers(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where AtomicFile.isTemporary(name, of: url.lastPathComponent) {
            unlink((folder as NSString).appendingPathComponent(name))
        }
    }
}
