import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The right to build one pyramid version into a data folder: an exclusive `flock` on
/// `DATA/building/{id}-{version}.lock`, held from before the build starts until it ends.
///
/// Why: processes sharing a data folder (two servers, a server and `tilescope build`, replicas with
/// the same lease holder) each saw a new file and built it at once. Publishing is progressive: the
/// second base replaced the first one's partial version, and the first process's next level then
/// had no folder to go into ("No such file or directory"), or found that level already there
/// ("Directory not empty"), and marked the image failed while a whole pyramid was on disk. With
/// this lock one process builds a version while the others wait for its pyramid. The kernel drops
/// a dead process's lock, so a crashed build never blocks another.
final class BuildLock: BuildHold, @unchecked Sendable {  // the descriptor is only closed, once, by `release`
    private let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// The lock on `path`, or nil while another process (or another build in this one) holds it.
    /// `wait`: blocks until it is free instead. Throws when the lock file cannot be made.
    static func take(_ path: String, wait: Bool) throws -> BuildLock? {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw StoreError(message: "cannot open the build lock \((path as NSString).lastPathComponent): "
                                 + String(cString: strerror(errno)))
            }
            guard flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0 else {
                close(descriptor)
                return nil
            }
            // The holder before us removes the file as it lets go: a lock on a file no longer at `path`
            // locks nothing anyone else will look at. Try again with the file there now.
            var held = stat(), named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return BuildLock(path: path, descriptor: descriptor)
            }
            close(descriptor)
        }
    }

    /// Removes the lock files nobody holds (left by processes that ended without letting go). Safe
    /// against a taker in between: `take` checks that the file it locked is still the one at its path.
    static func wipeFree(in folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".lock") {
            let path = folder + "/" + name
            let descriptor = open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
            close(descriptor)
        }
    }

    /// Lets go (at most once): the file goes first, while still locked, so no one takes a lock on a
    /// file about to vanish.
    func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }
}
