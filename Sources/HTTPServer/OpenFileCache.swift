import Glibc

/// Open descriptors of immutable files, so a hot file costs one `dup` instead of a path
/// walk (`open`) and a `stat`, as nginx's open_file_cache does. Only for files that never
/// change in place: Tilescope's pyramids are written once under a versioned folder.
public final class OpenFileCache: @unchecked Sendable {
    private struct Entry {
        let descriptor: Int32
        let size: Int
    }

    private var lock = pthread_mutex_t()
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var next = 0
    private let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(&lock, nil)
    }

    deinit {
        for entry in entries.values { close(entry.descriptor) }
        pthread_mutex_destroy(&lock)
    }

    /// A new descriptor of the regular file at `path` (the caller owns it) and its size,
    /// or nil if it cannot be opened.
    public func open(_ path: String) -> (descriptor: Int32, size: Int)? {
        pthread_mutex_lock(&lock)
        // dup under the lock: an entry evicted by another thread is closed under it too.
        if let entry = entries[path] {
            let copy = dup(entry.descriptor)
            pthread_mutex_unlock(&lock)
            return copy >= 0 ? (copy, entry.size) : nil
        }
        pthread_mutex_unlock(&lock)
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        let size = Int(info.st_size)
        let copy = dup(descriptor)
        guard copy >= 0 else { return (descriptor, size) }
        insert(path, Entry(descriptor: descriptor, size: size))
        return (copy, size)
    }

    /// Replaces entries round-robin once full: cheap, and fair enough for tiles.
    private func insert(_ path: String, _ entry: Entry) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if let existing = entries[path] {
            close(entry.descriptor)  // another thread cached it first
            _ = existing
            return
        }
        if order.count < capacity {
            order.append(path)
        } else {
            let victim = order[next]
            if let old = entries.removeValue(forKey: victim) { close(old.descriptor) }
            order[next] = path
            next = (next + 1) % capacity
        }
        entries[path] = entry
    }
}
