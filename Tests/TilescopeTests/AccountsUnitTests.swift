import Catalog
@testable import HTTPServer
import Testing
@testable import Tilescope

/// The pure parts of signing in: password hashes through libxcrypt, the users file, the form body, the
/// cookies, IIIF access tokens and the CSRF comparisons.
@Suite struct AccountsUnitTests {
    @Test func passwordHashesAreYescryptOrBcryptAndCheckedByLibxcrypt() throws {
        let yescrypt = try #require(UserPasswords.yescrypt("s3cret"))
        #expect(yescrypt.hasPrefix("$y$"))
        let hash = try PasswordHash.parse(Substring(yescrypt)).get()
        #expect(hash.matches("s3cret") && !hash.matches("s3cret ") && !hash.matches("") && !hash.matches("S3cret"))
        #expect("\(hash)" == "password hash ($y$)")  // never the hash itself
        // A bcrypt hash of "admin staple" made by Python's crypt (libxcrypt too), cost 4.
        let bcrypt = try PasswordHash.parse("$2b$04$8tO4Bh2XcIx5q7oV9H8D6eyO.0G2aH.PldnAtcoZR.wUoX7US/JoS").get()
        #expect(bcrypt.matches("admin staple") && !bcrypt.matches("something else"))
        for refused in ["$1$salt$abc", "$6$salt$abc", "plain", "$y$", "$2b$99$x", "$y$j9T$a:b$c"] {
            #expect((try? PasswordHash.parse(Substring(refused)).get()) == nil, "\(refused)")
        }
        #expect(!hash.matches(String(repeating: "x", count: PasswordHash.maxPasswordBytes + 1)))
    }

    @Test func aUsersFileListsNamesRolesAndHashesOrIsRefusedByLine() throws {
        let hash = try #require(UserPasswords.yescrypt("pw"))
        let file = try UsersFile.parse("# team\n\nann:viewer:\(hash)\r\nroot@example.org:admin:\(hash)\n")
        #expect(file.users.count == 2 && file.users["ann"]?.role == .viewer && file.users["root@example.org"]?.role == .admin)
        let cases = [("ann:boss:\(hash)", "line 1: the role must be viewer or admin"), ("ann viewer \(hash)", "line 1: a user is name:role:hash"),
                     ("\nann:viewer:\(hash)\nann:admin:\(hash)", "line 3: user 'ann' is listed twice"),
                     ("a b:viewer:\(hash)", "line 1: a name is 1 to 64 letters, digits, '.', '_', '@' or '-'"),
                     ("ann:viewer:$6$x$y", "line 1: the password hash must be yescrypt ($y$...) or bcrypt ($2b$...)")]
        for (text, message) in cases {
            #expect(throws: UsersFileError(message)) { try UsersFile.parse(text) }
        }
        #expect(UsersFile.isName("a") && !UsersFile.isName("") && !UsersFile.isName(String(repeating: "a", count: 65)) && !UsersFile.isName("a:b"))
    }

    @Test func aLoginFormIsBoundedAndStrict() throws {
        let form = try LoginForm.parse(Array("name=ann&password=a+b%26c%3D&csrf=x&origin=http%3A%2F%2Fh".utf8))
        #expect(form["name"] == "ann" && form["password"] == "a b&c=" && form["origin"] == "http://h")
        for bad in ["name=a&name=b", "user=a", "name=%zz", "name=%0", "name=%00", "name=%FF", "=x"] {
            #expect(throws: APIError.self) { try LoginForm.parse(Array(bad.utf8)) }
        }
        #expect((try? LoginForm.parse(Array(repeating: 0x61, count: LoginForm.maxBytes + 1))) == nil)
        #expect(try LoginForm.parse([]).fields.isEmpty)
    }

    @Test func cookiesYieldExactHexSecretsOnly() {
        let secret = String(repeating: "ab", count: 32)
        #expect(SessionCookie.value("tilescope_session", in: "a=b; tilescope_session=\(secret)", hexDigits: 64) == secret)
        #expect(SessionCookie.value("tilescope_session", in: "tilescope_session=\(secret.uppercased())", hexDigits: 64) == nil)
        #expect(SessionCookie.value("tilescope_session", in: "tilescope_session=\(secret)0", hexDigits: 64) == nil)
        #expect(SessionCookie.value("tilescope_session", in: "xtilescope_session=\(secret)", hexDigits: 64) == nil)
        #expect(SessionCookie.setSession(secret, maxAge: 60, secure: true) == "tilescope_session=\(secret); Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure")
    }

    @Test func accessTokensVerifyInOneSpellingUnderTheirKeyOnly() throws {
        let key = ViewerKey(id: 4, secret: Array(repeating: 1, count: 32))
        for subject in [AccessToken.Subject.session(String(repeating: "d", count: 64)), .header("carol@example.org")] {
            let token = AccessToken(keyID: 4, expires: 1_900_000_000, subject: subject)
            let text = token.text(signedWith: key)
            #expect(AccessToken.verified(Substring(text), keys: [key]) == token)
            #expect(AccessToken.verified(Substring(text), keys: [ViewerKey(id: 4, secret: Array(repeating: 2, count: 32))]) == nil)
            #expect(AccessToken.verified(Substring(text.uppercased()), keys: [key]) == nil)
            #expect(AccessToken.verified(Substring("0" + text), keys: [key]) == nil)
            // A signed URL's or a viewer cookie's MAC under the same key is no access token.
            let signed = SignedToken(keyID: 4, expires: 1_900_000_000, ids: ["a"]).text(signedWith: key)
            #expect(AccessToken.verified(Substring(signed), keys: [key]) == nil)
        }
    }

    @Test func csrfComparisonsAndOrigins() throws {
        #expect(CSRFGuard.equal("abc", "abc") && !CSRFGuard.equal("abc", "abd") && !CSRFGuard.equal("", "") && !CSRFGuard.equal("ab", "abc"))
        let own = "http://tiles.example.org"
        try CSRFGuard.checkOrigin(Request(method: "POST", rawPath: "/", headers: ["origin": own]), ownOrigin: own)
        try CSRFGuard.checkOrigin(Request(method: "POST", rawPath: "/"), ownOrigin: own)
        try CSRFGuard.checkOrigin(Request(method: "POST", rawPath: "/", headers: ["sec-fetch-site": "same-origin"]), ownOrigin: own)
        for headers in [["origin": "http://evil.example"], ["origin": "null"], ["origin": own + ".evil"], ["sec-fetch-site": "cross-site"]] {
            #expect(throws: APIError.self) { try CSRFGuard.checkOrigin(Request(method: "POST", rawPath: "/", headers: headers), ownOrigin: own) }
        }
        #expect(TilescopeApp.isOrigin("https://a.example:8443") && !TilescopeApp.isOrigin("https://a/b") && !TilescopeApp.isOrigin("javascript:x"))
        #expect(TilescopeApp.degradedFit(width: 640, height: 480, longest: 64) == (64, 48) && TilescopeApp.degradedFit(width: 10, height: 5, longest: 64) == (10, 5))
    }
}
