import Foundation

/// A name folded for the order people expect: case and accents ignored, digit runs compared as
/// numbers ("img2" before "img10"), the same on every machine (no locale).
struct NaturalSortKey: Comparable, Sendable {
    private enum Chunk: Comparable {
        /// Digits without leading zeros (compared by length, then digit by digit: any size works).
        case number(String)
        case text(String)

        static func < (a: Chunk, b: Chunk) -> Bool {
            switch (a, b) {
            case (.number(let x), .number(let y)): x.count != y.count ? x.count < y.count : x < y
            case (.text(let x), .text(let y)): x < y
            case (.number, .text): true   // "2 lions" before "lions"
            case (.text, .number): false
            }
        }
    }

    private let chunks: [Chunk]

    init(_ name: String) {
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var chunks: [Chunk] = []
        var current = ""
        var inDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            if inDigits {
                let trimmed = current.drop { $0 == "0" }
                chunks.append(.number(trimmed.isEmpty ? "0" : String(trimmed)))
            } else {
                chunks.append(.text(current))
            }
            current = ""
        }
        for character in folded {
            let isDigit = character.isASCII && character.isNumber
            if isDigit != inDigits { flush(); inDigits = isDigit }
            current.append(character)
        }
        flush()
        self.chunks = chunks
    }

    static func < (a: NaturalSortKey, b: NaturalSortKey) -> Bool {
        a.chunks.lexicographicallyPrecedes(b.chunks)
    }
}
