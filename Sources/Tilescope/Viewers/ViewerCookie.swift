import Catalog
import ObjectStore

/// The `tilescope_viewer` cookie: an anonymous browser's viewer id and an HMAC-SHA256 tag of it under one
/// of the server's viewer keys, `<32 hex digits>.<64 hex digits>`. Only the server can make a valid one,
/// so a client can keep its own id but never claim another's, nor invent ids with ratings of their own.
enum ViewerCookie {
    static let name = "tilescope_viewer"
    /// 400 days, the longest a browser keeps a cookie (RFC 6265bis): a viewer keeps their ratings for good
    /// as long as they come back within that.
    static let maxAgeSeconds = 400 * 24 * 3600
    /// Longer Cookie headers are not searched (a real one is well below; libmicrohttpd bounds it anyway).
    static let maxHeaderBytes = 8192

    /// The value for `viewer`, signed with `key`.
    static func value(_ viewer: ViewerID, key: ViewerKey) -> String {
        viewer.hex + "." + Hex.encode(tag(viewer, key))
    }

    /// The viewer a Cookie header names with a tag that one of `keys` made; nil for no cookie, a malformed
    /// one or a forged one. Every key is tried: a cookie signed before a rotation stays valid.
    static func viewer(cookieHeader: String?, keys: [ViewerKey]) -> ViewerID? {
        guard let header = cookieHeader, header.utf8.count <= maxHeaderBytes else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(name + "=") else { continue }
            let value = trimmed.dropFirst(name.count + 1)
            let parts = value.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let viewer = ViewerID(hex: String(parts[0])), viewer != .legacy,
                  parts[1].utf8.count == 2 * HMACSHA256.length,
                  let offered = Hex.decode(parts[1], lowercaseOnly: true) else { return nil }
            for key in keys where HMACSHA256.equal(tag(viewer, key), offered) { return viewer }
            return nil
        }
        return nil
    }

    /// The Set-Cookie value issuing `viewer`: HttpOnly (no script reads it), SameSite=Lax (no other site's
    /// form or script sends it with a write), Secure when the request came over HTTPS.
    static func setCookie(_ viewer: ViewerID, key: ViewerKey, secure: Bool) -> String {
        "\(name)=\(value(viewer, key: key)); Path=/; Max-Age=\(maxAgeSeconds); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    // MARK: - Internals

    /// The tag is over a labelled message, so a MAC made with these keys for anything else later can
    /// never pass for a viewer cookie.
    private static func tag(_ viewer: ViewerID, _ key: ViewerKey) -> [UInt8] {
        HMACSHA256.mac(key: key.secret, Array("tilescope_viewer/v1/\(viewer.hex)".utf8))
    }
}
