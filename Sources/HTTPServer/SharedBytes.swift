import Glibc

/// Immutable bytes in `malloc`ed memory that many responses send at once without copying:
/// each queued response holds a reference until libmicrohttpd has sent it, so an entry
/// evicted from a `FileBytesCache` mid-send stays valid until its last send ends.
public final class SharedBytes: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    public let count: Int

    /// Takes over `base`, which must come from `malloc` and hold `count` bytes (never written again).
    init(taking base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    /// A copy of `bytes` (made in memory, such as a tile cut from a source on request).
    public convenience init(copying bytes: [UInt8]) {
        let base = malloc(max(1, bytes.count))!
        bytes.withUnsafeBytes { if let source = $0.baseAddress { base.copyMemory(from: source, byteCount: bytes.count) } }
        self.init(taking: base, count: bytes.count)
    }

    /// The whole regular file at `path` read into memory, or nil if it cannot be opened, is not a
    /// regular file or is larger than `limit` bytes.
    public static func read(path: String, limit: Int) -> SharedBytes? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              info.st_size >= 0, Int(info.st_size) <= limit else { return nil }
        let size = Int(info.st_size)
        guard let base = malloc(max(1, size)) else { return nil }
        var done = 0
        while done < size {
            let got = Glibc.read(descriptor, base + done, size - done)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {  // truncated under us, or an I/O error: serve nothing rather than a part
                free(base)
                return nil
            }
            done += got
        }
        return SharedBytes(taking: base, count: size)
    }

    /// Reads the bytes in place (no copy), for a check of their shape.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes, copied out (for tests).
    public var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    deinit {
        free(base)
    }
}
