import Glibc

/// An HTTP response: status, headers and a body that is either bytes in memory or an
/// open file that libmicrohttpd sends with sendfile and then closes.
public struct Response: Sendable {
    public enum Body: Sendable {
        case empty
        case bytes([UInt8])
        /// Bytes in `malloc`ed memory, handed to libmicrohttpd without copying; it frees them after sending.
        case buffer(MallocBuffer)
        /// Immutable bytes shared with other responses (a `FileBytesCache` entry): sent without copying,
        /// headers and body in one write, kept alive until sent.
        case shared(SharedBytes)
        /// An open descriptor handed over to the server, which closes it after sending.
        case file(descriptor: Int32, size: Int)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body
    /// Set by the application when this exact answer may be given again, from `HotResponses`, to every
    /// request for `reuse.target` (the server keeps it only for a GET answered 200 with a `.shared` body).
    public var reuse: ReuseKey?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var bodySize: Int {
        switch body {
        case .empty: return 0
        case .bytes(let bytes): return bytes.count
        case .buffer(let buffer): return buffer.count
        case .shared(let bytes): return bytes.count
        case .file(_, let size): return size
        }
    }

    /// Replaces any header of that name (case-insensitively).
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { ASCII.equalIgnoringCase($0.name, name) }
        headers.append((name, value))
    }

    public func header(_ name: String) -> String? {
        headers.last { ASCII.equalIgnoringCase($0.name, name) }?.value
    }
}
