/// Who gave a rating: a viewer's 128-bit id as 32 lowercase hexadecimal digits (the id in a signed
/// `tilescope_viewer` cookie). The catalog never learns anything else about a viewer.
public struct ViewerID: Hashable, Sendable, CustomStringConvertible {
    public let hex: String

    /// The id of the ratings that existed before ratings were per viewer: each became one anonymous
    /// rating by this viewer. No cookie is ever issued for it (`random` never returns it).
    public static let legacy = ViewerID(unchecked: String(repeating: "0", count: 32))

    /// `hex` if it is 32 lowercase hexadecimal digits, else nil.
    public init?(hex: String) {
        guard hex.utf8.count == 32, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self.hex = hex
    }

    private init(unchecked hex: String) {
        self.hex = hex
    }

    /// A fresh id from the system's cryptographic generator (getrandom on Linux).
    public static func random() -> ViewerID {
        var generator = SystemRandomNumberGenerator()
        while true {
            let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let id = ViewerID(unchecked: bytes.map { byte in
                String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
            }.joined())
            if id != legacy { return id }
        }
    }

    public var description: String { hex }
}
