import Glibc

/// A response body in `malloc`ed memory, so that libmicrohttpd can send it and `free` it without
/// copying it first (a `[UInt8]` body is copied into libmicrohttpd's own buffer).
///
/// It frees the memory itself unless it was handed over to a queued response.
public final class MallocBuffer: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    public let count: Int
    private var owned = true

    /// Takes over `base`, which must come from `malloc` (or `realloc`) and hold `count` bytes.
    public init(taking base: UnsafeMutableRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    /// The bytes, copied out (for tests and logs).
    public var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    func handOver() {
        owned = false
    }

    deinit {
        if owned { free(base) }
    }
}
