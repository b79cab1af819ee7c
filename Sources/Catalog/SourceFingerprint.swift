import Foundation

/// Identifies one version of a source file: its size, modification time and the bytes
/// at its head and tail, hashed (FNV-1a, 64 bit) into 16 hex digits. A changed file
/// gets a new fingerprint, which names its pyramid's folder and versions its URLs, so
/// tiles of an older version can never be served as the new one's.
public struct SourceFingerprint: Hashable, Sendable, CustomStringConvertible {
    public let value: String
    public var description: String { value }

    public init(value: String) {
        self.value = value
    }

    /// Size and modification time, read with one `stat` call: the cheap change check.
    public struct Stamp: Hashable, Sendable {
        public var size: Int
        public var modifiedNanoseconds: Int

        public init(size: Int, modifiedNanoseconds: Int) {
            self.size = size
            self.modifiedNanoseconds = modifiedNanoseconds
        }

        public static func read(_ path: String) -> Stamp? {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return Stamp(size: Int(info.st_size),
                         modifiedNanoseconds: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
        }
    }

    static let sampleBytes = 64 * 1024

    /// Reads the stamp and up to 128 KiB of the file; nil if it cannot be read.
    public static func compute(_ path: String) -> (SourceFingerprint, Stamp)? {
        guard let stamp = Stamp.read(path), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hash = FNV1a()
        hash.add(UInt64(stamp.size))
        hash.add(UInt64(bitPattern: Int64(stamp.modifiedNanoseconds)))
        // `read` answers nil at the end of the file: an empty file has a fingerprint too.
        guard let head = try? handle.read(upToCount: sampleBytes) ?? Data() else { return nil }
        head.withUnsafeBytes { hash.add($0) }
        if stamp.size > sampleBytes {
            let tailStart = max(sampleBytes, stamp.size - sampleBytes)
            guard (try? handle.seek(toOffset: UInt64(tailStart))) != nil,
                  let tail = try? handle.read(upToCount: sampleBytes) else { return nil }
            tail.withUnsafeBytes { hash.add($0) }
        }
        return (SourceFingerprint(value: hash.hex), stamp)
    }
}

extension SourceFingerprint {
    /// The fingerprint of an object in a bucket, from what a listing says of it: its size and ETag (the store
    /// changes the ETag whenever the bytes change), so a change is noticed without reading a byte. Tagged apart
    /// from a folder file's fingerprint, which hashes a stamp and bytes. `etag` is bounded by the caller.
    public static func object(size: Int, etag: String) -> SourceFingerprint {
        var hash = FNV1a()
        hash.add(Array("s3-object".utf8))
        hash.add(UInt64(max(0, size)))
        hash.add(Array(etag.utf8))
        return SourceFingerprint(value: hash.hex)
    }
}

/// The 64-bit FNV-1a hash: tiny, fast, and enough to tell file versions apart.
struct FNV1a {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            state ^= UInt64(byte)
            state = state &* 0x0000_0100_0000_01b3
        }
    }

    mutating func add(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { add($0) }
    }

    var hex: String {
        let text = String(state, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
