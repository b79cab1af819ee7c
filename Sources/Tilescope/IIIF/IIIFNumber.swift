/// Strict number syntax for IIIF parameters: plain digits, optionally one decimal point.
/// No signs, exponents, spaces, "nan" or "inf", and a bounded length, so nothing the
/// parser accepts can overflow the arithmetic that follows.
enum IIIFNumber {
    static let maxDigits = 9

    /// A non-negative integer.
    static func integer<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maxDigits, text.utf8.allSatisfy(isDigit) else { return nil }
        return Int(text)
    }

    /// A non-negative decimal such as `12`, `12.5`, `0.25` or `.5`.
    static func decimal<S: StringProtocol>(_ text: S) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count <= 2, text.utf8.count <= 2 * maxDigits + 1,
              parts.allSatisfy({ $0.utf8.allSatisfy(isDigit) }), parts.contains(where: { !$0.isEmpty }),
              parts[0].utf8.count <= maxDigits else { return nil }
        return Double(parts[0].isEmpty ? "0" + text : String(text))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// `12`, `12.5`, `0.25`: the shortest form that reads back as the same value.
    static func canonical(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e9 { return String(Int(value)) }
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
