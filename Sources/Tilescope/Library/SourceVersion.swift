/// A source version as an `ImageRecord` keeps it: a fingerprint's 16 lowercase hex digits as their
/// 64-bit value, any other text as it is.
///
/// Sixteen characters are one more than Swift keeps inline in a `String`, so the text form costs a
/// heap object per image; the value costs none (docs/gallery-scale.md).
enum SourceVersion: Equatable, Sendable {
    case hex(UInt64)
    case text(String)

    init(_ text: String) {
        if let value = Self.hexValue(text) { self = .hex(value) } else { self = .text(text) }
    }

    /// The version as it was given: `SourceVersion(v).text == v` for every `v`.
    var text: String {
        switch self {
        case .text(let text): return text
        case .hex(let value):
            let digits: StaticString = "0123456789abcdef"
            return String(unsafeUninitializedCapacity: 16) { buffer in
                for index in 0..<16 {
                    let nibble = Int((value >> UInt64(60 - 4 * index)) & 0xF)
                    buffer[index] = digits.utf8Start[nibble]
                }
                return 16
            }
        }
    }

    /// The value of exactly 16 lowercase hex digits (so that the text comes back the same), else nil.
    private static func hexValue(_ text: String) -> UInt64? {
        guard text.utf8.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in text.utf8 {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
