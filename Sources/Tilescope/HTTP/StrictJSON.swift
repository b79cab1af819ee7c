/// A syntax check of request bodies against RFC 8259, run before Foundation decodes them.
///
/// Foundation's decoder is lenient (it takes trailing commas such as `{"rating": 5,}`), and a body
/// that one parser accepts and a stricter one refuses is how requests get read two ways. The depth
/// limit also keeps a hostile `[[[[...` from recursing through the decoder's stack.
enum StrictJSON {
    /// Arrays and objects nested deeper than this are refused; Tilescope's bodies are two levels deep.
    static let maxDepth = 32

    /// Nil when `bytes` is one well-formed JSON text, else what is wrong and where.
    static func problem(in bytes: [UInt8]) -> String? {
        var reader = Reader(bytes: bytes)
        do throws(Failure) {
            reader.skipSpace()
            try reader.value(depth: 0)
            reader.skipSpace()
            guard reader.index == bytes.count else { throw Failure("unexpected text after the JSON value", reader.index) }
            return nil
        } catch {
            return "not valid JSON: \(error.message) at byte \(error.offset)"
        }
    }

    struct Failure: Error {
        let message: String
        let offset: Int
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

        mutating func value(depth: Int) throws(Failure) {
            switch current {
            case UInt8(ascii: "{"): try object(depth: depth + 1)
            case UInt8(ascii: "["): try array(depth: depth + 1)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case nil: throw Failure("unexpected end of the body", index)
            case let byte? where byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")):
                try number()
            default: throw Failure("expected a value", index)
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            guard depth <= StrictJSON.maxDepth else { throw Failure("nested deeper than \(StrictJSON.maxDepth)", index) }
            index += 1
            skipSpace()
            if current == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw Failure("expected a quoted member name", index) }
                try string()
                skipSpace()
                try expect(UInt8(ascii: ":"), "':'")
                skipSpace()
                try value(depth: depth)
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            guard depth <= StrictJSON.maxDepth else { throw Failure("nested deeper than \(StrictJSON.maxDepth)", index) }
            index += 1
            skipSpace()
            if current == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipSpace()
                try value(depth: depth)
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                try expect(UInt8(ascii: "]"), "',' or ']'")
                return
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
        mutating func number() throws(Failure) {
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
        }

        mutating func digits() -> Int {
            let start = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }

        /// A quoted string: no raw control characters, only the escapes RFC 8259 defines. The bytes
        /// are checked as UTF-8 by the decoder that follows.
        mutating func string() throws(Failure) {
            index += 1
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { throw Failure("unterminated string", index) }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let hex = current, hex.isHexDigit else { throw Failure("expected four hex digits after \\u", index) }
                            index += 1
                        }
                    default:
                        throw Failure("unknown escape", index - 1)
                    }
                case 0..<0x20:
                    throw Failure("a control character inside a string", index - 1)
                default:
                    continue
                }
            }
            throw Failure("unterminated string", index)
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
