import Catalog

/// The body of `PUT /api/images/{id}/rating`: `{"rating": N}`, N a whole number from 0 to 10.
/// Every way it can be wrong gets its own message.
///
/// The number is judged from its text, exactly: `7.0` and `0.7e1` are 7, `5.000000000000000001` is not
/// whole (a double would round it to 5), and a whole number beyond any rating (`1e23`, `1e400`) is out of
/// range like 11, however far beyond Int or Double it is.
enum RatingBody {
    static let shape = #"send {"rating": N} with N a whole number from \#(Rating.range.lowerBound) to \#(Rating.range.upperBound)"#

    static func parse(_ body: [UInt8]) throws -> Int {
        let members = try JSONObjectBody.members(body, fields: ["rating"], shape: shape)
        guard let rating = members.first(where: { $0.name == "rating" })?.value else {
            throw APIError.badRequest(#"the field "rating" is missing: \#(shape)"#)
        }
        let text: String
        switch rating {
        case .number(let number): text = number
        case .null: throw APIError.badRequest(#""rating" is null: \#(shape)"#)
        case .string(let string): throw notWhole("the string \"\(string.prefix(20))\"")
        case .bool: throw notWhole("a boolean")
        case .array: throw notWhole("an array")
        case .object: throw notWhole("an object")
        }
        switch wholeNumber(text) {
        case .fraction:
            throw notWhole(String(text.prefix(30)))
        case .whole(let whole?) where Rating.range.contains(whole):
            return whole
        case .whole:
            throw APIError.badRequest(RatingError.outOfRangeMessage(String(text.prefix(30))))
        }
    }

    private static func notWhole(_ what: String) -> APIError {
        APIError.badRequest(#""rating" must be a whole number (a JSON integer such as 7), not \#(what): \#(shape)"#)
    }

    enum Number: Equatable {
        /// A whole number: its value, or nil when it is beyond 18 digits (so beyond any rating).
        case whole(Int?)
        case fraction
    }

    /// Whether the JSON number `text` (the grammar `StrictJSON` checked) is whole, read exactly from its digits
    /// and exponent; the exponent is bounded before any arithmetic, so `1e99999999999999999999` cannot overflow.
    static func wholeNumber(_ text: String) -> Number {
        var digits: [UInt8] = []  // every mantissa digit, the point removed
        var pointShift = 0        // digits after the point
        var exponent = 0
        var exponentNegative = false
        var negative = false
        var part = 0              // 0: integer digits, 1: fraction digits, 2: exponent
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-") where part == 0: negative = true
            case UInt8(ascii: "-"): exponentNegative = true
            case UInt8(ascii: "+"): continue
            case UInt8(ascii: "."): part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"): part = 2
            default:
                let digit = Int(byte &- UInt8(ascii: "0"))
                guard digit < 10 else { continue }
                if part == 2 {
                    if exponent < 1_000_000_000 { exponent = exponent * 10 + digit }  // far past any digit count
                } else {
                    digits.append(UInt8(digit))
                    if part == 1 { pointShift += 1 }
                }
            }
        }
        // value = digits × 10^scale
        var scale = (exponentNegative ? -exponent : exponent) - pointShift
        while let last = digits.last, last == 0 {
            digits.removeLast()
            scale += 1
        }
        guard let first = digits.firstIndex(where: { $0 != 0 }) else { return .whole(0) }
        let significant = digits[first...]
        guard scale >= 0 else { return .fraction }
        guard significant.count + scale <= 18 else { return .whole(nil) }
        var value = 0
        for digit in significant { value = value * 10 + Int(digit) }
        for _ in 0..<scale { value *= 10 }
        return .whole(negative ? -value : value)
    }
}
