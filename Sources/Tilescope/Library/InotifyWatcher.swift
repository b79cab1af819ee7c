#if canImport(Glibc)
import Foundation
import Glibc

/// Linux inotify on the images folder: the kernel queues the name of every file created, written,
/// renamed, removed or touched there; `takeEvents` drains that queue without blocking, and
/// `waitForEvents` sleeps until something is queued, so a new file is looked at as it arrives.
///
/// Made before the first full scan, so nothing that happens during or after it is missed. A full
/// kernel queue (`IN_Q_OVERFLOW`) or a watch that ended (the folder moved or was removed) reports
/// `.everything`, and the scanner falls back to a full scan.
public final class InotifyWatcher: FolderChangeFeed, @unchecked Sendable { // @unchecked: the fd is behind `lock`.
    private let lock = NSLock()
    private let descriptor: Int32
    private let folder: String
    private var watch: Int32

    /// The fixed part of `struct inotify_event`: wd, mask, cookie, len.
    private static let headerSize = 16

    /// Watches `folder`; nil when inotify is unavailable (no kernel support, or the per-user limit
    /// of watches or instances is reached), and the caller uses another feed.
    public init?(folder: String) {
        let fd = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard fd >= 0 else { return nil }
        let watch = inotify_add_watch(fd, folder, FolderEvents.watched)
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
        takeEvents().change
    }

    /// Waits up to `timeout` seconds for an event to be queued; true if one is (not taken).
    public func waitForEvents(timeout: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(max(0, timeout * 1000))) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    /// Every event queued since the last call, by name.
    public func takeEvents() -> FolderEvents {
        lock.withLock {
            var events = FolderEvents()
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
                    // The name is NUL-padded to `len` bytes.
                    let raw: ArraySlice<UInt8> = length > 0 ? buffer[nameStart..<nameEnd].prefix { $0 != 0 } : []
                    events.record(mask: mask, name: String(decoding: raw, as: UTF8.self))
                    offset = nameEnd
                }
            }
            if events.lostTrack {
                // The watch may have ended: watch the folder (again) for what comes next.
                inotify_rm_watch(descriptor, watch)
                watch = inotify_add_watch(descriptor, folder, FolderEvents.watched)
            }
            return events
        }
    }
}
#endif
