/// An input of the form `{width}x{height}|{text}`: an image size chosen by the fuzzer, then the text
/// to parse. Without a valid prefix the whole input is the text and the size is `defaultSize`.
struct SizedInput {
    static let maxSide = 200_000
    var width: Int
    var height: Int
    var text: String

    init(_ bytes: [UInt8], defaultSize: (Int, Int) = (1000, 800)) {
        (width, height) = defaultSize
        text = String(decoding: bytes, as: UTF8.self)
        guard let bar = bytes.firstIndex(of: UInt8(ascii: "|")), bar <= 20,
              let header = String(validating: bytes[..<bar], as: UTF8.self) else { return }
        let sides = header.split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2, let w = Self.side(sides[0]), let h = Self.side(sides[1]) else { return }
        (width, height) = (w, h)
        text = String(decoding: bytes[(bar + 1)...], as: UTF8.self)
    }

    /// 1 up to `maxSide`: larger numbers are folded into that range rather than refused, so the
    /// fuzzer's mutations of the digits stay useful.
    private static func side(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.utf8.count <= 9, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let value = Int(digits) else { return nil }
        return value == 0 ? 1 : (value - 1) % maxSide + 1
    }
}
