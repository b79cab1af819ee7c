#if canImport(Glibc)
import Foundation
import Glibc

/// Linux inotify on the images folder: the kernel queues the name of every file created, written,
/// renamed, removed or touched there, and `takeChanges` drains that queue without blocking.
///
/// Made before the first full scan, so nothing that happens during or after it is missed. A full
/// kernel queue (`IN_Q_OVERFLOW`) or a watch that ended (the folder moved or was removed) reports
/// `.everything`, and the scanner falls back to a full scan.
public final class InotifyWatcher: FolderChangeFeed, @unchecked Sendable { // @unchecked: the fd is behind `lock`.
    private let lock = NSLock()
    private let descriptor: Int32
    private let folder: String
    private var watch: Int32

    // From <sys/inotify.h>; spelled out because Swift imports the macros with varying types.
    private static let modify: UInt32 = 0x0000_0002
    private static let attributes: UInt32 = 0x0000_0004
    private static let closeWrite: UInt32 = 0x0000_0008
    private static let movedFrom: UInt32 = 0x0000_0040
    private static let movedTo: UInt32 = 0x0000_0080
    private static let create: UInt32 = 0x0000_0100
    private static let delete: UInt32 = 0x0000_0200
    private static let deleteSelf: UInt32 = 0x0000_0400
    private static let moveSelf: UInt32 = 0x0000_0800
    private static let overflow: UInt32 = 0x0000_4000
    private static let ignored: UInt32 = 0x0000_8000
    private static let mask = modify | attributes | closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf
    /// The fixed part of `struct inotify_event`: wd, mask, cookie, len.
    private static let headerSize = 16

    /// Watches `folder`; nil when inotify is unavailable (no kernel support, or the per-user limit
    /// of watches or instances is reached), and the caller uses another feed.
    public init?(folder: String) {
        let fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { return nil }
        let watch = inotify_add_watch(fd, folder, Self.mask)
        guard watch >= 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
        self.folder = folder
        self.watch = watch
    }

    deinit { close(descriptor) }

    public func takeChanges() -> FolderChange {
        lock.withLock {
            var names: Set<String> = []
            var everything = false
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }  // EAGAIN: the queue is empty
                var offset = 0
                while offset + Self.headerSize <= count {
                    let (mask, length) = buffer.withUnsafeBytes { bytes in
                        (bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                         Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                    }
                    let nameStart = offset + Self.headerSize
                    let nameEnd = min(count, nameStart + length)
                    if mask & (Self.overflow | Self.ignored | Self.deleteSelf | Self.moveSelf) != 0 { everything = true }
                    if length > 0 {
                        // The name is NUL-padded to `len` bytes.
                        let raw = buffer[nameStart..<nameEnd].prefix { $0 != 0 }
                        names.insert(String(decoding: raw, as: UTF8.self))
                    }
                    offset = nameEnd
                }
            }
            if everything {
                // The watch may have ended: watch the folder (again) for what comes next.
                inotify_rm_watch(descriptor, watch)
                watch = inotify_add_watch(descriptor, folder, Self.mask)
                return .everything
            }
            return names.isEmpty ? .nothing : .names(names)
        }
    }
}
#endif
