import Foundation

/// Latin letters for any text, so an image id keeps the name's words instead of dropping them.
///
/// ICU's Any-Latin transform (Foundation's `.toLatin`, present on Linux) spells out other scripts
/// ("日本" -> "rì běn", "Привет" -> "Privet"), `.stripDiacritics` then removes accents; a few letters
/// neither decomposes get their usual spelling (Æ -> AE, ø -> o, ß -> ss). What is still not
/// ASCII (an emoji) becomes `u` and its hexadecimal code point, so no character vanishes silently.
enum ASCIITransliteration {
    static func latin(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy(\.isASCII) else { return text }
        var text = text.precomposedStringWithCompatibilityMapping
        text = text.applyingTransform(.toLatin, reverse: false) ?? text
        text = text.applyingTransform(.stripDiacritics, reverse: false) ?? text
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else if let spelled = spellings[scalar] {
                result += spelled
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.isEmojiPresentation {
                result += " u" + String(scalar.value, radix: 16) + " "
            } else {
                result += " "  // punctuation and spaces of other scripts separate words
            }
        }
        return result
    }

    /// Letters without a decomposition, spelled as their languages do in ASCII.
    static let spellings: [Unicode.Scalar: String] = [
        "Æ": "AE", "æ": "ae", "Ø": "O", "ø": "o", "Œ": "OE", "œ": "oe", "ß": "ss", "ẞ": "SS",
        "Ł": "L", "ł": "l", "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "Þ": "TH", "þ": "th",
        "ı": "i", "Ħ": "H", "ħ": "h", "ŉ": "n", "Ŋ": "NG", "ŋ": "ng", "ĸ": "q", "ſ": "s",
    ]
}
