import Foundation

/// A name folded for the order people expect: case and accents ignored, digit runs compared as
/// numbers ("img2" before "img10"), the same on every machine (no locale).
///
/// Otherwise character by character on Unicode scalars, a digit run standing where its first digit
/// would: "tiger 1" < "tiger2" (space before digits) and "2 lions" < "lions" (digits before letters).
struct NaturalSortKey: Comparable, Sendable {
    private enum Element: Comparable {
        case scalar(UInt32)
        /// ASCII digits without leading zeros: compared by length, then digit by digit, so any size works.
        case number(String)

        private static let digitZero = UInt32(("0" as Unicode.Scalar).value)

        static func < (a: Element, b: Element) -> Bool {
            switch (a, b) {
            case (.scalar(let x), .scalar(let y)): x < y
            case (.number(let x), .number(let y)): x.count != y.count ? x.count < y.count : x < y
            case (.number, .scalar(let y)): digitZero < y
            case (.scalar(let x), .number): x < digitZero
            }
        }
    }

    private let elements: [Element]

    init(_ name: String) {
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var elements: [Element] = []
        var digits = ""
        func flushDigits() {
            guard !digits.isEmpty else { return }
            let significant = digits.drop { $0 == "0" }
            elements.append(.number(significant.isEmpty ? "0" : String(significant)))
            digits = ""
        }
        for scalar in folded.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                digits.unicodeScalars.append(scalar)
            } else {
                flushDigits()
                elements.append(.scalar(scalar.value))
            }
        }
        flushDigits()
        self.elements = elements
    }

    static func < (a: NaturalSortKey, b: NaturalSortKey) -> Bool {
        a.elements.lexicographicallyPrecedes(b.elements)
    }
}
