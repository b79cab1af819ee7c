/// A small JSON writer for the viewport answer: keys in the documented order, numbers in their shortest
/// exact form (whole numbers without `.0`), written straight into bytes.
///
/// The viewport answer is on the hot path (the target is at most twice the cost of a static tile) and a
/// retina screen needs a hundred tiles or more; Foundation's JSONEncoder neither keeps key order nor runs
/// cheaply, so this appends chunks and digits without building intermediate strings.
struct ViewportJSON {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: structure

    mutating func beginObject(_ key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func beginObject() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray(_ key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    // MARK: fields

    mutating func field(_ key: StaticString, _ value: String) {
        self.key(key)
        Self.appendString(value, to: &bytes)
        needsComma = true
    }

    mutating func field(_ key: StaticString, _ value: Double) {
        self.key(key)
        appendNumber(value)
        needsComma = true
    }

    mutating func field(_ key: StaticString, _ value: Int?) {
        self.key(key)
        if let value { appendInt(value) } else { appendRaw("null") }
        needsComma = true
    }

    /// A string the caller guarantees needs no escaping (percent-encoded URL parts), written as is.
    mutating func field(_ key: StaticString, unescapedParts parts: (inout ViewportJSON) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "\""))
        parts(&self)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    // MARK: pieces

    mutating func appendRaw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func appendRaw(_ chunk: [UInt8]) {
        bytes.append(contentsOf: chunk)
    }

    mutating func appendInt(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        var rest = magnitude
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Whole numbers below 2^53 as integers (`2048`, not `2048.0`); others in Swift's shortest round-trip form,
    /// which is valid JSON (`0.25`, `1e-05`). Non-finite values cannot be JSON: `null` (the request checks make
    /// them unreachable).
    mutating func appendNumber(_ value: Double) {
        guard value.isFinite else { return appendRaw("null") }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            appendInt(Int(value))
        } else {
            var text = value.description  // at most 24 bytes: usually a small (inline) string, no allocation
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    private mutating func key(_ key: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        appendRaw(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// `value` as `ViewportJSON` writes it, for messages and tests.
    static func number(_ value: Double) -> String {
        var writer = ViewportJSON(capacity: 24)
        writer.appendNumber(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        if plain {
            bytes.append(contentsOf: text.utf8)
        } else {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case 0..<0x20:
                    bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                              hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
