/// A small, allocation-light JSON writer for the viewport answer: keys in the documented order, numbers in
/// their shortest exact form (whole numbers without `.0`).
///
/// The viewport answer is on the hot path (the target is at most twice the cost of a static tile), and
/// Foundation's JSONEncoder neither keeps key order nor runs cheaply; this writes straight into bytes.
struct ViewportJSON {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject(_ key: String? = nil) {
        if let key { writeKey(key) } else { separate() }
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray(_ key: String) {
        writeKey(key)
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    mutating func field(_ key: String, _ value: String) {
        writeKey(key)
        Self.appendString(value, to: &bytes)
        needsComma = true
    }

    mutating func field(_ key: String, _ value: Double) {
        writeKey(key)
        bytes += Self.number(value).utf8
        needsComma = true
    }

    mutating func field(_ key: String, _ value: Int?) {
        writeKey(key)
        bytes += (value.map(String.init) ?? "null").utf8
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func writeKey(_ key: String) {
        separate()
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Whole numbers below 2^53 print as integers (`2048`, not `2048.0`); others use Swift's shortest
    /// round-tripping form, which is valid JSON (`0.25`, `1e-05`). Non-finite values cannot be JSON:
    /// they print as `null` (the request checks make them unreachable).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return String(value)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
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
        bytes.append(UInt8(ascii: "\""))
    }
}
