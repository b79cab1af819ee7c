import Glibc

/// The bytes of hot immutable files held in memory, bounded by their total size, so that a hot
/// file costs no system call until its response goes out, and then one: headers and body leave in
/// a single `writev` (a file response costs `dup`, a header `send`, `sendfile` and `close`).
///
/// Only for files that never change in place: the key is the path, so a new version of a file must
/// live at a new path (Tilescope's pyramids are written once under a folder named by the source
/// version, so a new source version means new keys and old entries simply age out).
/// Eviction is CLOCK (an approximation of LRU that needs no list surgery on a hit): a hit only sets
/// a flag, and room is made by sweeping entries, sparing once those used since the last sweep.
public final class FileBytesCache: @unchecked Sendable {
    private struct Slot {
        var path: String
        var bytes: SharedBytes
        var referenced: Bool
    }

    /// Total bytes held at most.
    public let capacity: Int
    /// Files larger than this are never held (they would push out many small hot ones).
    public let maxFileBytes: Int

    private var lock = pthread_mutex_t()
    private var index: [String: Int] = [:]
    private var slots: [Slot] = []
    private var hand = 0
    private var held = 0
    private var hitCount = 0
    private var missCount = 0

    public init(capacity: Int, maxFileBytes: Int = 1 << 20) {
        self.capacity = max(0, capacity)
        self.maxFileBytes = max(0, min(maxFileBytes, self.capacity))
        pthread_mutex_init(&lock, nil)
    }

    deinit {
        pthread_mutex_destroy(&lock)
    }

    /// The bytes of the regular file at `path`, from memory when held, else read (and held if it
    /// fits). Nil if it cannot be read or is larger than `maxFileBytes` (the caller then sends it
    /// from its descriptor).
    public func bytes(at path: String) -> SharedBytes? {
        guard maxFileBytes > 0 else { return nil }  // turned off: not even a miss to count
        if let bytes = lookup(path) { return bytes }
        guard let bytes = SharedBytes.read(path: path, limit: maxFileBytes) else { return nil }
        insert(path, bytes)
        return bytes
    }

    /// Holds `bytes` as the file at `path` would be held: for bytes made in memory whose path has no file
    /// (a tile of a source served from its own levels), so that later lookups find them like a hot file's.
    public func hold(_ bytes: SharedBytes, at path: String) {
        guard maxFileBytes > 0 else { return }
        insert(path, bytes)
    }

    /// The bytes held for `path`, never read from a file: for paths that have none (`hold`), whose miss would
    /// otherwise cost a failed `open`.
    public func held(at path: String) -> SharedBytes? {
        guard maxFileBytes > 0 else { return nil }
        return lookup(path)
    }

    /// Forgets the bytes held for `path` (a file found damaged and replaced under the same path).
    public func remove(_ path: String) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard let position = index[path] else { return }
        removeSlot(at: position)
    }

    /// Bytes held now, entries held now, hits and misses since start.
    public var counts: (bytes: Int, entries: Int, hits: Int, misses: Int) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return (held, index.count, hitCount, missCount)
    }

    private func lookup(_ path: String) -> SharedBytes? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard let position = index[path] else {
            missCount &+= 1
            return nil
        }
        hitCount &+= 1
        slots[position].referenced = true
        return slots[position].bytes
    }

    private func insert(_ path: String, _ bytes: SharedBytes) {
        guard bytes.count <= maxFileBytes else { return }
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard index[path] == nil else { return }  // another thread read it first
        while held + bytes.count > capacity, !slots.isEmpty {
            evictOne()
        }
        guard held + bytes.count <= capacity else { return }
        index[path] = slots.count
        slots.append(Slot(path: path, bytes: bytes, referenced: false))
        held += bytes.count
    }

    /// Removes the first entry under the hand not used since the hand last passed it.
    private func evictOne() {
        while true {
            if hand >= slots.count { hand = 0 }
            if slots[hand].referenced {
                slots[hand].referenced = false
                hand += 1
                continue
            }
            removeSlot(at: hand)
            return
        }
    }

    /// Drops the entry at `position`; the array stays dense: the last slot moves into the hole. Under the lock.
    private func removeSlot(at position: Int) {
        index[slots[position].path] = nil
        held -= slots[position].bytes.count
        let last = slots.count - 1
        if position != last {
            slots[position] = slots[last]
            index[slots[position].path] = position
        }
        slots.removeLast()
    }
}
