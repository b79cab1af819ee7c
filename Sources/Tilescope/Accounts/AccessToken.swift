import Catalog
import ObjectStore

/// A IIIF Authorization Flow 2.0 access token (the token service's `accessToken`, sent to the probe as
/// `Authorization: Bearer`): short-lived and bound to what signed the user in, so signing out revokes it.
///
///     {key}.{expires}.s{session digest}.{tag}     a session's (verifies while the session lives)
///     {key}.{expires}.h{name in hex}.{tag}        a trusted header's user (no session: until it expires)
///
/// `tag` is the HMAC-SHA256 in hex, under a catalog viewer key, of `tilescope_access/v1/` and everything before
/// it: the label keeps signed URLs and viewer cookies (same keys) from passing for one, and back.
struct AccessToken: Sendable, Equatable {
    enum Subject: Sendable, Equatable {
        /// The session's digest (`UserSession.idHash`).
        case session(String)
        /// A user the trusted header named.
        case header(String)
    }

    let keyID: Int
    let expires: Int
    let subject: Subject

    static let maxBytes = 400
    /// Lifetime: the probe is asked again for a new one when it expires; a short life bounds a copied token.
    static let lifetimeSeconds = 300

    func text(signedWith key: ViewerKey) -> String {
        let head = "\(key.id).\(expires).\(Self.subjectText(subject))"
        return head + "." + Hex.encode(Self.tag(head, key))
    }

    /// The token `text` spells if its tag verifies under the key it names (expiry and session not checked here).
    static func verified(_ text: Substring, keys: [ViewerKey]) -> AccessToken? {
        guard text.utf8.count <= maxBytes, let dot = text.lastIndex(of: ".") else { return nil }
        let head = text[..<dot], offered = text[text.index(after: dot)...]
        let fields = head.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 3, let keyID = Endpoint.naturalNumber(fields[0]),
              fields[1].utf8.count <= 12, let expires = Int(fields[1]), expires >= 0, fields[1].utf8.allSatisfy({ (48...57).contains($0) }),
              let subject = parseSubject(fields[2]), offered.utf8.count == 2 * HMACSHA256.length,
              let tag = Hex.decode(offered, lowercaseOnly: true), let key = keys.first(where: { $0.id == keyID }),
              HMACSHA256.equal(Self.tag(String(head), key), tag) else { return nil }
        return AccessToken(keyID: keyID, expires: expires, subject: subject)
    }

    private static func subjectText(_ subject: Subject) -> String {
        switch subject {
        case .session(let digest): return "s" + digest
        case .header(let name): return "h" + Hex.encode(Array(name.utf8))
        }
    }

    private static func parseSubject(_ text: Substring) -> Subject? {
        let body = text.dropFirst()
        switch text.first {
        case "s":
            guard body.utf8.count == 64, Hex.decode(body, lowercaseOnly: true) != nil else { return nil }
            return .session(String(body))
        case "h":
            guard let bytes = Hex.decode(body, lowercaseOnly: true), let name = String(validating: bytes, as: UTF8.self),
                  UsersFile.isName(name) else { return nil }
            return .header(name)
        default: return nil
        }
    }

    private static func tag(_ head: String, _ key: ViewerKey) -> [UInt8] {
        HMACSHA256.mac(key: key.secret, Array(("tilescope_access/v1/" + head).utf8))
    }
}
