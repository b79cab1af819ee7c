/// One key that viewer cookies are signed with: its number (the newest, highest, signs) and its secret.
/// The secret never leaves the server: `description` does not show it, so logging a key leaks nothing.
public struct ViewerKey: Sendable, Equatable, CustomStringConvertible {
    public let id: Int
    public let secret: [UInt8]

    public init(id: Int, secret: [UInt8]) {
        self.id = id
        self.secret = secret
    }

    /// A key with 32 bytes from the system's cryptographic generator (getrandom on Linux).
    public static func random(id: Int) -> ViewerKey {
        var generator = SystemRandomNumberGenerator()
        return ViewerKey(id: id, secret: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    public var description: String { "viewer key \(id)" }
}
