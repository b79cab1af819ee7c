import Catalog
import ObjectStore

/// The credential of a signed URL: which images it opens, until when, and the HMAC-SHA256 tag that proves the
/// server made it, written as one path segment so that every URL under `/signed/{token}/` carries it (plain
/// `<img>` tiles, and the tile URLs OpenSeadragon derives from a descriptor's URL):
///
///     {key}.{expires}.{id}~{id}~...~{id}.{tag}
///
/// `key` is the number of the catalog key that signed it (`viewer_keys`, the keys viewer cookies are signed
/// with), `expires` the Unix time in seconds after which it opens nothing, the ids those of the images it opens
/// (slugs: `a-z`, `0-9`, `-`, `_`, so neither `.` nor `~` is in one), and `tag` the HMAC-SHA256 in hex of
/// `tilescope_signed/v1/` followed by everything before the last dot. The label keeps a MAC made with the same
/// keys for anything else (a viewer cookie) from passing for a signed URL, and the exact text is signed, so no
/// other spelling of the same numbers verifies. Only the characters `0-9 a-z . ~ -` appear: nothing to escape.
struct SignedToken: Sendable, Equatable {
    let keyID: Int
    /// Unix time, seconds.
    let expires: Int
    let ids: [String]
    /// `expires` as an HTTP date, for the `Expires` of every answer under the token: made once per token.
    let expiresHTTPDate: String

    init(keyID: Int, expires: Int, ids: [String]) {
        self.keyID = keyID
        self.expires = expires
        self.ids = ids
        expiresHTTPDate = AccessControl.httpDate(expires)
    }

    /// The longest token read; longer ones are refused before any work (and a hot tile's target holds 1 KB).
    static let maxBytes = 900
    /// Most images one token opens.
    static let maxIDs = 32
    /// The longest lifetime an admin may ask for: a year, as long as a versioned tile is cached.
    static let maxLifetimeSeconds = 365 * 24 * 3600

    /// Whether `id` may be named by a token: a slug (`a-z`, `0-9`, `-`, `_`, as ids are) of at most 128 bytes.
    static func isTokenID(_ id: Substring) -> Bool {
        !id.isEmpty && id.utf8.count <= 128
            && id.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
    }

    /// The token as it goes into a URL, signed with `key`.
    func text(signedWith key: ViewerKey) -> String {
        let head = Self.head(keyID: key.id, expires: expires, ids: ids)
        return head + "." + Hex.encode(Self.tag(head, key))
    }

    /// The token `text` spells, if it is well formed and its tag is the one the key it names makes; nil
    /// otherwise (malformed, too long, an unknown or retired key, a forged or altered tag). Expiry is not
    /// checked here: a valid token that has expired is told apart from a forged one.
    static func verified(_ text: Substring, keys: [ViewerKey]) -> SignedToken? {
        guard text.utf8.count <= maxBytes, let dot = text.lastIndex(of: ".") else { return nil }
        let head = text[..<dot], offered = text[text.index(after: dot)...]
        let fields = head.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 3, let keyID = Endpoint.naturalNumber(fields[0]), let expires = decimal(fields[1]) else { return nil }
        let ids = fields[2].split(separator: "~", omittingEmptySubsequences: false)
        guard ids.count <= maxIDs, ids.allSatisfy(isTokenID), offered.utf8.count == 2 * HMACSHA256.length,
              let tag = Hex.decode(offered, lowercaseOnly: true), let key = keys.first(where: { $0.id == keyID }),
              HMACSHA256.equal(Self.tag(String(head), key), tag) else { return nil }
        return SignedToken(keyID: keyID, expires: expires, ids: ids.map(String.init))
    }

    /// Whether the token opens `id` at Unix time `now`.
    func opens(_ id: String, at now: Int) -> Bool {
        now < expires && ids.contains(id)
    }

    /// `rawPath` as logs may show it: a signed URL's tag replaced by `-`, so the access log names the key, the
    /// expiry and the images (who was let in to what, until when) but never holds a working credential.
    static func redacted(_ rawPath: String) -> String {
        let prefix = "/signed/"
        guard rawPath.hasPrefix(prefix) else { return rawPath }
        let rest = rawPath.dropFirst(prefix.count)
        let token = rest.prefix { $0 != "/" }
        let head = token.lastIndex(of: ".").map { token[..<$0] + ".-" } ?? "-"
        return prefix + head + rest[token.endIndex...]
    }

    // MARK: - Internals

    private static func head(keyID: Int, expires: Int, ids: [String]) -> String {
        "\(keyID).\(expires).\(ids.joined(separator: "~"))"
    }

    private static func tag(_ head: String, _ key: ViewerKey) -> [UInt8] {
        HMACSHA256.mac(key: key.secret, Array(("tilescope_signed/v1/" + head).utf8))
    }

    /// A Unix time: 1 to 12 digits, no sign (good past the year 30000, and no overflow).
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }
}
