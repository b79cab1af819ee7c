/// The colour that transparent pixels are laid over wherever the answer's format cannot keep them: the
/// stored JPEG tiles and preview, and JPEG (or GIF) answers of IIIF. White unless set (`--background`).
/// PNG, WebP, AVIF and TIFF answers keep the alpha instead, and the client lays those over its own page.
public struct Background: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = Background(red: 255, green: 255, blue: 255)

    /// `#rrggbb` or `rrggbb` (hex digits, either case), or `white` or `black`; nil for anything else.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "white": self = .white
        case "black": self = Background(red: 0, green: 0, blue: 0)
        default:
            let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard digits.utf8.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16)
            else { return nil }
            self = Background(red: UInt8(value >> 16), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        }
    }

    public var description: String { hex }

    /// `#rrggbb`, lowercase.
    public var hex: String {
        "#" + [red, green, blue].map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
    }
}
