/// The secret that `Authorization: Bearer <token>` must carry for uploads and deletions.
public struct AdminToken: Sendable {
    private let bytes: [UInt8]

    /// Nil for an unset or empty token: uploads are then refused.
    public init?(_ text: String?) {
        guard let text, !text.isEmpty else { return nil }
        bytes = Array(text.utf8)
    }

    /// Whether the header is `Bearer <token>` with this token. The comparison takes the same time
    /// wherever the first difference is, so response times do not reveal the token byte by byte.
    public func accepts(authorization header: String?) -> Bool {
        guard let header else { return false }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let offered = Array(parts[1].trimmingCharacters(in: [" ", "\t"]).utf8)
        var difference = UInt8(offered.count == bytes.count ? 0 : 1)
        // Time depends on the offered length only, never on the secret's content.
        for index in offered.indices {
            difference |= offered[index] ^ bytes[index % bytes.count]
        }
        return difference == 0
    }
}
