import CHTTPShims
import Glibc

/// The peer's IP address, kept as libmicrohttpd's bytes and printed only when asked. Only the access log
/// reads it, and printing it (`inet_ntop`) cost about 1,800 instructions a request, a hundredth of a viewport
/// answer, whether or not anything logged it.
public struct ClientAddress: Sendable, Hashable {
    private enum Form: Sendable, Hashable {
        case text(String)
        case ipv4(SIMD4<UInt8>)
        case ipv6(SIMD16<UInt8>)
    }

    private let form: Form

    /// An address already in text (tests, and `-` when there is none).
    public init(_ text: String) {
        form = .text(text)
    }

    /// The connection's client address; `-` when libmicrohttpd has none.
    init(connection: OpaquePointer) {
        var bytes = SIMD16<UInt8>()
        let length = withUnsafeMutableBytes(of: &bytes) { raw in
            ts_mhd_client_address(connection, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        self.init(networkBytes: bytes, length: Int(length))
    }

    /// An address in network byte order: 4 bytes IPv4, 16 bytes IPv6, anything else unknown (`-`).
    init(networkBytes bytes: SIMD16<UInt8>, length: Int) {
        switch length {
        case 4: form = .ipv4(bytes.lowHalf.lowHalf)
        case 16: form = .ipv6(bytes)
        default: form = .text("-")
        }
    }

    /// The address in network byte order (4 bytes IPv4, 16 IPv6); nil for one known only as text.
    public var networkBytes: [UInt8]? {
        switch form {
        case .text: return nil
        case .ipv4(let bytes): return (0..<4).map { bytes[$0] }
        case .ipv6(let bytes): return (0..<16).map { bytes[$0] }
        }
    }

    /// An address parsed from text (`192.0.2.1`, `2001:db8::1`), kept as bytes; nil when it is not one.
    public init?(parsing text: Substring) {
        var bytes = SIMD16<UInt8>()
        let text = String(text)
        let length: Int? = withUnsafeMutableBytes(of: &bytes) { raw in
            if inet_pton(AF_INET, text, raw.baseAddress) == 1 { return 4 }
            if inet_pton(AF_INET6, text, raw.baseAddress) == 1 { return 16 }
            return nil
        }
        guard let length else { return nil }
        self.init(networkBytes: bytes, length: length)
    }

    /// `127.0.0.1`, `::1`.
    public var text: String {
        switch form {
        case .text(let text): return text
        case .ipv4(let bytes): return Self.printed(bytes, family: AF_INET)
        case .ipv6(let bytes): return Self.printed(bytes, family: AF_INET6)
        }
    }

    private static func printed<Bytes>(_ bytes: Bytes, family: Int32) -> String {
        withUnsafeBytes(of: bytes) { raw in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { text in
                inet_ntop(family, raw.baseAddress, text.baseAddress, socklen_t(text.count)) != nil
                    ? String(cString: text.baseAddress!) : "-"
            }
        }
    }
}
