import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One store's own folder for builds in progress, `{staging}/{owner}/`, held with an exclusive
/// `flock` on `{staging}/{owner}.lock` for as long as the store lives.
///
/// Why not one shared folder wiped at start: a second store on the same data folder (`tilescope
/// build` run next to a server, or a restart in the same process while a build still finishes)
/// wiped the first one's build under libvips, whose dzsave then asserts on the vanished folder
/// and aborts the whole process. Now a store wipes only folders whose lock nobody holds: those of
/// processes that ended (the kernel drops a dead process's locks) and of stores already gone.
final class StagingArea: @unchecked Sendable {
    /// Where this store's builds go.
    let folder: String
    private let lockDescriptor: Int32
    /// Removes finished builds' folders off the builds' path (`StagingSweeper`).
    let sweeper = StagingSweeper()

    init(root: String) throws {
        let files = FileManager.default
        try files.createDirectory(atPath: root, withIntermediateDirectories: true)
        Self.wipeAbandoned(in: root)
        let owner = "\(getpid())-\(UUID().uuidString.prefix(8))"
        // Locked before the folder exists, so nobody ever sees this folder without its lock held.
        guard let descriptor = Self.lock(root + "/" + owner + ".lock", wait: true) else {
            throw StoreError(message: "cannot lock \(root)/\(owner).lock: \(String(cString: strerror(errno)))")
        }
        lockDescriptor = descriptor
        folder = root + "/" + owner
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit {
        // Our own folder goes with us; a build that still runs in it after this (none should) would
        // fail with a clear error rather than leave it behind. The sweeper is done first, so the two
        // never remove the same files at once.
        sweeper.finish()
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.removeItem(atPath: folder + ".lock")
        close(lockDescriptor)
    }

    /// Removes every folder under `root` whose lock is free (builds interrupted by a crash are never
    /// resumed: their sources are built again because no pyramid was published), and the folders of
    /// the layout before owners (`{staging}/{id}-{version}-{random}`, no lock file).
    static func wipeAbandoned(in root: String) {
        let files = FileManager.default
        for name in (try? files.contentsOfDirectory(atPath: root)) ?? [] where !name.hasSuffix(".lock") {
            let path = root + "/" + name
            guard let descriptor = lock(path + ".lock", wait: false) else { continue }  // its owner lives
            try? files.removeItem(atPath: path)
            try? files.removeItem(atPath: path + ".lock")
            close(descriptor)
        }
    }

    /// An exclusive lock on `path` (made if missing), or nil if another holds it (`wait: false`) or it
    /// cannot be opened.
    private static func lock(_ path: String, wait: Bool) -> Int32? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
