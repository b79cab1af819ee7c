import Catalog
import HTTPServer
@testable import Tilescope

/// What a client or an operator sends for signing in, split at NUL bytes: a sign-in form body, a Cookie
/// header, a IIIF access token (`Authorization: Bearer`), and a users file. The form parses to known fields
/// given once, or is refused with a 400 or 413; a cookie yields a session secret of exactly 64 lowercase hex
/// digits or nothing; a token that verifies is exactly what the server would sign; a users file parses to
/// valid names and roles or is refused with its reason. (Users files with crypt hashes are left out: checking
/// one is libxcrypt's work, tens of milliseconds, and its parameters are the operator's.)
enum AccountsTarget {
    static let keys = [ViewerKey(id: 3, secret: Array(repeating: 5, count: 32))]

    static func run(_ bytes: [UInt8]) {
        let parts = bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map(Array.init)
        checkForm(parts[0])
        if parts.count > 1 { checkCookie(String(decoding: parts[1], as: UTF8.self)) }
        if parts.count > 2 { checkToken(String(decoding: parts[2], as: UTF8.self)) }
        if parts.count > 3 { checkUsers(String(decoding: parts[3], as: UTF8.self)) }
    }

    private static func checkForm(_ body: [UInt8]) {
        do {
            let form = try LoginForm.parse(body)
            FuzzCheck.require(Set(form.fields.keys).isSubset(of: LoginForm.names), "a form field of another name")
            FuzzCheck.require(form.fields.values.allSatisfy { !$0.utf8.contains(0) }, "a NUL in a form value")
        } catch {
            FuzzCheck.require(error.status == 400 || error.status == 413, "a bad form answered \(error.status)")
        }
    }

    private static func checkCookie(_ header: String) {
        for name in [SessionCookie.session, SessionCookie.login] {
            let digits = name == SessionCookie.session ? 64 : 32
            guard let value = SessionCookie.value(name, in: header, hexDigits: digits) else { continue }
            FuzzCheck.require(value.utf8.count == digits && value.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) },
                              "a cookie value that is not \(digits) hex digits")
        }
        let request = Request(method: "GET", rawPath: "/", headers: ["cookie": header, "authorization": "Bearer " + header])
        let accounts = Accounts(keyring: ViewerKeyring(keys: keys))
        FuzzCheck.require(accounts.session(of: request) == nil && accounts.probeUser(request) == nil, "no catalog, yet a session")
    }

    private static func checkToken(_ text: String) {
        guard let token = AccessToken.verified(Substring(text), keys: keys) else { return }
        FuzzCheck.require(token.text(signedWith: keys[0]) == text, "an access token verified in another spelling")
        FuzzCheck.require(text.utf8.count <= AccessToken.maxBytes, "an access token over the bound")
    }

    private static func checkUsers(_ text: String) {
        guard !text.contains("$y$"), !text.contains("$2") else { return }
        do {
            let file = try UsersFile.parse(text)
            FuzzCheck.require(file.users.isEmpty, "a users file without crypt hashes gave users")
        } catch {
            // The reason names the line (or the file), never echoes a line's hash field.
            FuzzCheck.require(error.message.hasPrefix("line ") || error.message.hasPrefix("the users file"), "a refusal without a line: \(error)")
        }
    }
}
