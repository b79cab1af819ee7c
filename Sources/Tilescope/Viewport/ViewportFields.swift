import HTTPServer  // QueryArguments

/// Reads typed values out of raw request fields, with errors that name the field.
struct ViewportFields {
    /// A JSON body's fields, or a query string's, read as they are: a query's are not copied into a
    /// second dictionary of `.text` values, the viewport answer is on the hot path.
    private let json: [String: ViewportFieldValue]?
    private let query: QueryArguments
    /// One bit per query key (`filterBit`): a field whose bit is clear is absent without hashing its name.
    /// A request names six of the sixteen fields; the other ten lookups hashed a name each to find nothing.
    private let queryKeys: UInt64

    init(_ values: [String: ViewportFieldValue]) {
        json = values
        query = QueryArguments()
        queryKeys = 0
    }

    init(query: QueryArguments) {
        json = nil
        self.query = query
        queryKeys = query.reduce(0) { $0 | Self.filterBit($1.key) }
    }

    /// The raw value of `field`, `nil` when absent.
    func value(_ field: String) -> ViewportFieldValue? {
        if let json { return json[field] }
        guard queryKeys & Self.filterBit(field) != 0 else { return nil }
        return query[field].map { .text($0) }
    }

    /// A bit from a name's length and last byte: the field names differ in them, so an absent field rarely
    /// shares a present one's bit (when it does, the dictionary answers as before).
    private static func filterBit(_ name: String) -> UInt64 {
        // Over contiguous bytes: `utf8.last` steps a String index back, about 75 instructions a name.
        var name = name
        return name.withUTF8 { utf8 in 1 << UInt64((utf8.count &* 7 &+ Int(utf8.last ?? 0)) & 63) }
    }

    /// Every field a viewport request reads: only these may not be given twice (a cache-busting `v` may).
    static let names: Set<String> = [
        "width", "height", "scale", "zoomScale", "offsetX", "offsetY", "insets", "minZoomScale", "maxZoomScale",
        "zoomRect", "tap", "factor", "tapDirection", "prefetch", "tileFrames", "tileURLs",
    ]

    /// The first field given twice in a query string, or `nil`. Query strings only: a JSON body's repeats are
    /// found where its members are still listed (`ViewportQuery.parse(json:)`).
    func repeatedField() -> String? {
        guard json == nil, !query.repeatedNames.isEmpty else { return nil }
        return query.repeatedNames.first(where: Self.names.contains)
    }

    /// A number as sent and its value: the text of a query string or of a JSON number, read alike. A numeral
    /// beyond Double is ±infinity here (`1e400`); the callers say what the field accepts.
    private func numeral(_ field: String) throws(ViewportQueryError) -> (value: Double, text: String)? {
        switch value(field) {
        case nil, .null?: return nil
        case .number(let text)?, .text(let text)?: return (try Self.parseNumber(text, field), text)
        case .bool?, .list?, .object?, .unsupported?: throw .malformed(field, "a number")
        }
    }

    /// A finite number, or `nil` when the field is absent.
    func number(_ field: String) throws(ViewportQueryError) -> Double? {
        guard let (value, text) = try numeral(field) else { return nil }
        return try Self.finite(value, text, field)
    }

    /// A number within `range`, or `nil` when the field is absent; out of it (a numeral beyond Double, `1e400`,
    /// included) the message says the range, `expected`.
    /// `expected` is made only for the message: on every request it was a Double written out twice.
    func number(_ field: String, in range: ClosedRange<Double>,
                _ expected: @autoclosure () -> String) throws(ViewportQueryError) -> Double? {
        guard let (value, text) = try numeral(field) else { return nil }
        guard range.contains(value) else { throw .outOfRange(field, value, expected(), sent: text) }
        return value
    }

    /// A fixed list of finite numbers: `"a,b,c"`, a JSON array `[a, b, c]` or a JSON object with exactly
    /// the given `names` (missing names take `defaultValue` when there is one).
    func numbers(_ field: String, names: [String], defaultValue: Double? = nil) throws(ViewportQueryError) -> [Double]? {
        // Only an error needs the description: most requests have none of these fields.
        var expected: String { "\(names.count) numbers \"\(names.joined(separator: ","))\"" }
        func read(_ text: some StringProtocol, _ name: String) throws(ViewportQueryError) -> Double {
            let field = "\(field).\(name)"
            let text = String(text)
            return try Self.finite(try Self.parseNumber(text, field), text, field)
        }
        switch value(field) {
        case nil, .null?:
            return nil
        case .text(let text)?:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == names.count else { throw .malformed(field, expected) }
            var result: [Double] = []
            for (name, part) in zip(names, parts) { result.append(try read(part, name)) }
            return result
        case .list(let list)?:
            guard list.count == names.count else { throw .malformed(field, expected) }
            var result: [Double] = []
            for (name, text) in zip(names, list) { result.append(try read(text, name)) }
            return result
        case .object(let object)?:
            if let unknown = object.keys.sorted().first(where: { !names.contains($0) }) {
                throw .malformed(field, "\(expected) (unknown key '\(unknown.prefix(40))')")
            }
            var result: [Double] = []
            for name in names {
                if let text = object[name] {
                    result.append(try read(text, name))
                } else if let defaultValue {
                    result.append(defaultValue)
                } else {
                    throw .missing("\(field).\(name)")
                }
            }
            return result
        case .number?, .bool?, .unsupported?:
            throw .malformed(field, expected)
        }
    }

    /// `1`/`true` or `0`/`false`; `nil` when absent.
    func flag(_ field: String) throws(ViewportQueryError) -> Bool? {
        switch value(field) {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .text("1")?, .text("true")?: return true
        case .text("0")?, .text("false")?: return false
        // A JSON number as the number it is: `1.0` is 1.
        case .number(let text)? where Double(text) == 1: return true
        case .number(let text)? where Double(text) == 0: return false
        default: throw .malformed(field, "1 or 0 (true or false)")
        }
    }

    /// `value` when finite; `text` is how it was sent, for the message (`1e400`).
    static func finite(_ value: Double, _ text: String, _ field: String) throws(ViewportQueryError) -> Double {
        guard value.isFinite else { throw .notFinite(field, text) }
        return value
    }

    /// A decimal number as JSON writes them (a leading `+` and surrounding spaces forgiven); ±infinity for one
    /// beyond Double (`1e999`), which the caller refuses with the field's range or as not finite. Swift's own
    /// `Double(String)` also takes hexadecimal, `nan` and `inf`; those are refused, the last two with their own
    /// messages.
    static func parseNumber(_ raw: String, _ field: String) throws(ViewportQueryError) -> Double {
        // The common case first: a short plain decimal, without the C library. Then any decimal, parsed from
        // the String itself (`Double(Substring)` copies the text into a new C string first).
        if let value = shortDecimal(raw.utf8) { return value }
        if isDecimal(raw.utf8[...]), let value = Double(raw) { return value }
        let text = raw.trimmingASCIISpaces
        var unsigned = text
        if unsigned.first == "+" || unsigned.first == "-" { unsigned = unsigned.dropFirst() }
        if isDecimal(unsigned.utf8), let value = Double(text) { return value }
        switch unsigned.lowercased() {
        case "nan": throw .notANumberValue(field)
        case "inf", "infinity": throw .notFinite(field, text.hasPrefix("-") ? "-inf" : "inf")
        default: throw .notANumber(field, raw)
        }
    }

    /// `digits [. digits]` or `. digits` with 1 to 15 digits in all (what viewport clients send: `1280`,
    /// `0.336643`, `105.9`), or nil for anything else. Exactly `Double(text)`: the digits as an integer below
    /// 10^15 < 2^53 and 10^fraction (at most 10^15 < 10^22) are both exact doubles, and one IEEE division of
    /// exact operands is the correctly rounded quotient, as strtod's answer is (Clinger's fast path). About
    /// a fifth of the cost of `isDecimal` and `Double(String)` (260 instructions a number against 1,350).
    static func shortDecimal(_ text: String.UTF8View) -> Double? {
        var mantissa: UInt64 = 0, digits = 0, fraction = 0, point = false
        for byte in text {
            if byte &- UInt8(ascii: "0") < 10 {
                digits += 1
                guard digits <= 15 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                if point { fraction += 1 }
            } else if byte == UInt8(ascii: "."), !point {
                point = true
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        return Double(mantissa) / powersOfTen[fraction]
    }

    /// 10^0 ... 10^15, each exact.
    private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

    /// `digits [. digits] [e [sign] digits]` or `. digits [...]`, at least one mantissa digit.
    static func isDecimal(_ bytes: Substring.UTF8View) -> Bool {
        var index = bytes.startIndex
        func digits() -> Int {
            var count = 0
            while index < bytes.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                index = bytes.index(after: index)
                count += 1
            }
            return count
        }
        var mantissa = digits()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index = bytes.index(after: index)
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index = bytes.index(after: index)
            }
            guard digits() > 0 else { return false }
        }
        return index == bytes.endIndex
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: Substring {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != UInt8(ascii: " ") }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != UInt8(ascii: " ") })!
        return self[first...last]
    }
}
