import Catalog
import HTTPServer
@testable import Tilescope

/// Signed URLs as a client sends them: the bytes up to the first NUL are a path segment read as a token
/// (`/signed/{token}/dzi/a.dzi`), the rest a `POST /api/images/{id}/signed-urls` body. A token is refused or
/// verified; a verified one is exactly what the server would have signed (no other spelling passes), within
/// its bounds, and logs never show its tag. A token made from the input's head with the server's key always
/// verifies, and opens what it names. A body is refused with a 400 or gives bounded values.
enum SignedTokenTarget {
    static let keys = [ViewerKey(id: 2, secret: Array(repeating: 7, count: 32)), ViewerKey(id: 1, secret: Array(repeating: 9, count: 32))]
    static let access = AccessControl(keyring: ViewerKeyring(keys: keys), adminToken: nil)

    static func run(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let text = String(decoding: bytes[..<split], as: UTF8.self)
        checkToken(Substring(text))
        checkMount(text)
        checkResigned(text)
        if split < bytes.endIndex { checkBody(Array(bytes[(split + 1)...])) }
    }

    private static func checkToken(_ text: Substring) {
        guard let token = SignedToken.verified(text, keys: keys) else { return }
        let key = keys.first { $0.id == token.keyID }!
        FuzzCheck.require(token.text(signedWith: key) == String(text), "a token verified in another spelling: \(text)")
        FuzzCheck.require(!token.ids.isEmpty && token.ids.count <= SignedToken.maxIDs && token.ids.allSatisfy { SignedToken.isTokenID(Substring($0)) },
                          "a verified token names ids it cannot")
        FuzzCheck.require(text.utf8.count <= SignedToken.maxBytes, "a verified token over the bound")
        let logged = SignedToken.redacted("/signed/\(text)/dzi/a.dzi")
        FuzzCheck.require(!logged.contains(String(text.suffix(64))), "the log line holds the tag")
    }

    private static func checkMount(_ text: String) {
        let request = Request(method: "GET", rawPath: "/signed/\(text)/dzi/a.dzi")
        guard let segments = request.pathSegments else { return }
        do {
            let (inner, rest, token) = try access.mounted(request, segments: segments, now: 1_000_000_000)
            FuzzCheck.require(inner.rawPath == "/dzi/a.dzi" && rest == ["dzi", "a.dzi"], "the path after the token changed")
            FuzzCheck.require(inner.mountPath == "/signed/\(text)" && token.expires > 1_000_000_000, "a mounted token is not the one sent")
        } catch let error as APIError {
            FuzzCheck.require(error.status == 401, "a bad token answered \(error.status)")
        } catch {
            FuzzCheck.require(false, "a token threw \(error)")
        }
    }

    /// The input's text as ids and an expiry, signed by the server: it must verify and open exactly those ids.
    private static func checkResigned(_ text: String) {
        let ids = text.split(separator: "~", omittingEmptySubsequences: false)
        guard !ids.isEmpty, ids.count <= SignedToken.maxIDs, ids.allSatisfy(SignedToken.isTokenID) else { return }
        let token = SignedToken(keyID: 1, expires: 1_000_000_000 + text.utf8.count, ids: ids.map(String.init))
        let signed = token.text(signedWith: keys[1])
        guard signed.utf8.count <= SignedToken.maxBytes else { return }
        FuzzCheck.require(SignedToken.verified(Substring(signed), keys: keys) == token, "a token the server signed did not verify")
        FuzzCheck.require(ids.allSatisfy { token.opens(String($0), at: 1_000_000_000) } && !token.opens(String(ids[0]), at: token.expires),
                          "a token does not open what it names until it expires")
        FuzzCheck.require(SignedToken.verified(Substring(signed), keys: [ViewerKey(id: 1, secret: Array(repeating: 8, count: 32))]) == nil,
                          "a token verified under another key")
    }

    private static func checkBody(_ body: [UInt8]) {
        do {
            let asked = try SignedURLRequest.parse(body)
            FuzzCheck.require((1...SignedToken.maxLifetimeSeconds).contains(asked.lifetimeSeconds) && asked.images.count < SignedToken.maxIDs,
                              "a body gave out-of-range values")
        } catch let error as APIError {
            FuzzCheck.require(error.status == 400, "a bad body answered \(error.status)")
        } catch {
            FuzzCheck.require(false, "a body threw \(error)")
        }
    }
}
