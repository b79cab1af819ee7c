import Foundation

/// The folder-change feed where inotify is not available: a `stat` of the folder itself each time.
///
/// A folder's modification time moves when a file is added, removed or renamed in it, not when a
/// file already there is rewritten in place; so a changed time means a full scan, and every
/// `sweepEvery`-th look scans everything anyway to catch files rewritten in place.
public final class DirectoryStampWatcher: FolderChangeFeed, @unchecked Sendable { // @unchecked: state is behind `lock`.
    private let lock = NSLock()
    private let folder: String
    private let sweepEvery: Int
    private var lastStamp: timespec?
    private var looks = 0

    public init(folder: String, sweepEvery: Int = 30) {
        self.folder = folder
        self.sweepEvery = max(1, sweepEvery)
        lastStamp = Self.stamp(folder)
    }

    public func takeChanges() -> FolderChange {
        lock.withLock {
            looks += 1
            let now = Self.stamp(folder)
            defer { lastStamp = now }
            if looks % sweepEvery == 0 { return .everything }
            guard let now, let last = lastStamp, now.tv_sec == last.tv_sec, now.tv_nsec == last.tv_nsec else {
                return .everything
            }
            return .nothing
        }
    }

    private static func stamp(_ folder: String) -> timespec? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return nil }
        return info.st_mtim
    }
}
