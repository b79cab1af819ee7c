/// Request bodies read against RFC 8259 by Tilescope itself, not by Foundation.
///
/// Foundation's decoder is lenient (it takes trailing commas such as `{"rating": 5,}`), and a body
/// that one parser accepts and a stricter one refuses is how requests get read two ways. It also loses
/// what the checks after it need: a number beyond Double (`1e400`) is "not valid JSON" to it, and of a
/// name given twice JSONSerialization keeps the last value where JSONDecoder keeps the first. Here numbers
/// stay the text sent and objects keep every member in order, repeats included. The depth limit also keeps
/// a hostile `[[[[...` from recursing through the stack.
enum StrictJSON {
    /// Arrays and objects nested deeper than this are refused; Tilescope's bodies are two levels deep.
    static let maxDepth = 32

    /// One JSON value as sent.
    indirect enum Value: Equatable, Sendable {
        /// The members in the order sent, a name given twice included (`repeatedName(in:)`).
        case object([Member])
        case array([Value])
        case string(String)
        /// The number's text, as the grammar below took it (`-1.5e3`, `1e400`).
        case number(String)
        case bool(Bool)
        case null
    }

    struct Member: Equatable, Sendable {
        let name: String
        let value: Value
    }

    /// The one JSON text in `bytes`, or what is wrong and where.
    static func parse(_ bytes: [UInt8]) throws(Failure) -> Value {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw Failure("unexpected text after the JSON value", reader.index) }
        return value
    }

    /// Nil when `bytes` is one well-formed JSON text, else what is wrong and where.
    static func problem(in bytes: [UInt8]) -> String? {
        do throws(Failure) {
            _ = try parse(bytes)
            return nil
        } catch {
            return error.description
        }
    }

    /// The first name given twice among `members` (in the order the repeats come), counting only the names in
    /// `known` when it is given: an endpoint ignores names it does not read, repeated or not.
    static func repeatedName(in members: [Member], among known: Set<String>? = nil) -> String? {
        var seen = Set<String>()
        for member in members where known?.contains(member.name) ?? true {
            if !seen.insert(member.name).inserted { return member.name }
        }
        return nil
    }

    struct Failure: Error, CustomStringConvertible {
        let message: String
        let offset: Int
        var description: String { "not valid JSON: \(message) at byte \(offset)" }
        init(_ message: String, _ offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
            guard current == byte else { throw Failure("expected \(what)", index) }
            index += 1
        }

        mutating func value(depth: Int) throws(Failure) -> Value {
            switch current {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case nil: throw Failure("unexpected end of the body", index)
            case let byte? where byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")):
                return .number(try number())
            default: throw Failure("expected a value", index)
            }
        }

        mutating func object(depth: Int) throws(Failure) -> Value {
            guard depth <= StrictJSON.maxDepth else { throw Failure("nested deeper than \(StrictJSON.maxDepth)", index) }
            index += 1
            skipSpace()
            var members: [Member] = []
            if current == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw Failure("expected a quoted member name", index) }
                let name = try string()
                skipSpace()
                try expect(UInt8(ascii: ":"), "':'")
                skipSpace()
                members.append(Member(name: name, value: try value(depth: depth)))
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(Failure) -> Value {
            guard depth <= StrictJSON.maxDepth else { throw Failure("nested deeper than \(StrictJSON.maxDepth)", index) }
            index += 1
            skipSpace()
            var items: [Value] = []
            if current == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth))
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return .array(items)
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw Failure("expected \(word)", index) }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
            }
            guard matches else { throw Failure("expected \(word)", index) }
            index += count
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() throws(Failure) -> String {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() > 0 else { throw Failure("expected a digit", index) }
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw Failure("expected a digit after '.'", index) }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw Failure("expected a digit in the exponent", index) }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func digits() -> Int {
            let start = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }

        /// A quoted string, unescaped: no raw control characters, only the escapes RFC 8259 defines, UTF-8 bytes,
        /// and `\u` escapes of UTF-16 surrogates only in pairs (half a pair is no character).
        mutating func string() throws(Failure) -> String {
            let start = index
            index += 1
            var unescaped: [UInt8]? = nil  // made at the first escape: most strings have none
            var runStart = index
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    var text = unescaped ?? []
                    text.append(contentsOf: bytes[runStart..<(index - 1)])
                    guard let string = String(validating: text, as: UTF8.self) else {
                        throw Failure("a string that is not UTF-8", start)
                    }
                    return string
                case UInt8(ascii: "\\"):
                    var text = unescaped ?? []
                    text.append(contentsOf: bytes[runStart..<(index - 1)])
                    guard let escaped = current else { throw Failure("unterminated string", index) }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        let escapeStart = index - 2
                        var unit = try hexUnit()
                        if (0xDC00...0xDFFF).contains(unit) { throw Failure("half a surrogate pair", escapeStart) }
                        if (0xD800...0xDBFF).contains(unit) {
                            guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                                throw Failure("half a surrogate pair", escapeStart)
                            }
                            index += 2
                            let low = try hexUnit()
                            guard (0xDC00...0xDFFF).contains(low) else { throw Failure("half a surrogate pair", escapeStart) }
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        // Not a surrogate, so a scalar.
                        text.append(contentsOf: Unicode.Scalar(unit).map { Array(String($0).utf8) } ?? [])
                    default:
                        throw Failure("unknown escape", index - 1)
                    }
                    unescaped = text
                    runStart = index
                case 0..<0x20:
                    throw Failure("a control character inside a string", index - 1)
                default:
                    continue
                }
            }
            throw Failure("unterminated string", index)
        }

        /// The four hex digits after `\u`.
        mutating func hexUnit() throws(Failure) -> UInt32 {
            var unit: UInt32 = 0
            for _ in 0..<4 {
                guard let hex = current, hex.isHexDigit else { throw Failure("expected four hex digits after \\u", index) }
                unit = unit << 4 | UInt32(hex.hexValue)
                index += 1
            }
            return unit
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }

    /// The digit's value; only for `isHexDigit` bytes.
    fileprivate var hexValue: UInt8 {
        self <= 0x39 ? self - 0x30 : (self | 0x20) - 0x61 + 10
    }
}
