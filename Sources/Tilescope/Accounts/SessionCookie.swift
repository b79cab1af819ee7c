/// The cookies of signing in. `tilescope_session` carries a session's secret (32 random bytes in hex; the
/// catalog keeps its SHA-256 only). `tilescope_login` carries the login form's CSRF secret, which the form
/// repeats in a hidden field (double submit): another site's page can post the form but cannot read or set
/// the cookie, so it cannot sign a victim in to the attacker's account (login CSRF).
enum SessionCookie {
    static let session = "tilescope_session"
    static let login = "tilescope_login"
    static let maxHeaderBytes = 8192

    /// The value of cookie `name` in a Cookie header when it is `hexDigits` lowercase hex digits; nil otherwise.
    static func value(_ name: String, in header: String?, hexDigits: Int) -> String? {
        guard let header, header.utf8.count <= maxHeaderBytes else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(name + "=") else { continue }
            let value = trimmed.dropFirst(name.count + 1)
            guard value.utf8.count == hexDigits, value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                return nil
            }
            return String(value)
        }
        return nil
    }

    /// Issues the session cookie: HttpOnly (no script reads it), SameSite=Lax (another site's form, fetch or
    /// iframe does not carry it), Secure over HTTPS; it lasts as long as the session.
    static func setSession(_ secret: String, maxAge: Int, secure: Bool) -> String {
        "\(session)=\(secret); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// Deletes the session cookie (signing out).
    static func clearSession(secure: Bool) -> String {
        "\(session)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The login form's CSRF cookie: strict (sent by same-site requests only), for the auth pages only, an hour.
    static func setLogin(_ secret: String, secure: Bool) -> String {
        "\(login)=\(secret); Path=/auth; Max-Age=3600; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }
}
