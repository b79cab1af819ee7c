/// Lowercase hexadecimal, as SigV4 writes hashes and signatures.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a hexadecimal string (either case), or nil if it is not one.
    public static func decode(_ text: String) -> [UInt8]? {
        decode(Substring(text), lowercaseOnly: false)
    }

    /// The same, of `text`; with `lowercaseOnly`, as `encode` writes it and nothing else: a credential the server
    /// wrote in lowercase has exactly one spelling that verifies.
    public static func decode(_ text: Substring, lowercaseOnly: Bool) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index], lowercaseOnly), let low = value(chars[index + 1], lowercaseOnly) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ char: UInt8, _ lowercaseOnly: Bool) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where !lowercaseOnly: return char - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
