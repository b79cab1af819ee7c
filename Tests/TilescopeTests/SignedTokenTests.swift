import Catalog
import Testing
@testable import Tilescope

/// The signed URL's token alone: what verifies, what does not, and what logs may show of it.
@Suite struct SignedTokenTests {
    let old = ViewerKey.random(id: 1), new = ViewerKey.random(id: 2)

    @Test func aTokenVerifiesUnderItsKeyAndOpensItsImagesUntilItExpires() throws {
        let token = SignedToken(keyID: 2, expires: 2_000_000_000, ids: ["harbour", "tiger-0"])
        let text = token.text(signedWith: new)
        #expect(text.hasPrefix("2.2000000000.harbour~tiger-0.") && text.utf8.count == "2.2000000000.harbour~tiger-0.".count + 64)
        let read = try #require(SignedToken.verified(Substring(text), keys: [new, old]))
        #expect(read == token)
        #expect(read.opens("harbour", at: 1_999_999_999) && read.opens("tiger-0", at: 0))
        #expect(!read.opens("harbour", at: 2_000_000_000))  // expired at its second
        #expect(!read.opens("tiger", at: 0) && !read.opens("harbour-2", at: 0))
        // Signed by the older key, it still verifies while that key is in the catalog, and not once it is gone.
        let older = SignedToken(keyID: 1, expires: 2_000_000_000, ids: ["a"]).text(signedWith: old)
        #expect(SignedToken.verified(Substring(older), keys: [new, old]) != nil)
        #expect(SignedToken.verified(Substring(older), keys: [new]) == nil)
    }

    @Test func anyChangeToATokenOrItsTagIsRefused() throws {
        let text = SignedToken(keyID: 2, expires: 2_000_000_000, ids: ["harbour"]).text(signedWith: new)
        let tag = String(text.suffix(64)), head = String(text.dropLast(65))
        let flipped = String(tag.prefix(63)) + (tag.hasSuffix("0") ? "1" : "0")
        let forgeries = [
            head + "." + flipped,                                   // one digit of the tag
            "2.2000000001.harbour." + tag,                          // a later expiry
            "2.02000000000.harbour." + tag,                         // the same expiry spelt otherwise
            "2.2000000000.harbour~tiger." + tag,                    // another image added
            "2.2000000000.tiger." + tag,                            // another image
            "1.2000000000.harbour." + tag,                          // another key's number
            "3.2000000000.harbour." + tag,                          // a key that does not exist
            SignedToken(keyID: 2, expires: 2_000_000_000, ids: ["harbour"]).text(signedWith: .random(id: 2)),  // a forger's key
            head + "." + tag.uppercased(), head + "." + String(tag.prefix(62)), head + "." + tag + "00",
            head, "", ".", "...", "2..harbour." + tag, "2.2000000000.." + tag, "2.2000000000.Harbour." + tag,
            "2.2000000000.har.bour." + tag, "2.-5.harbour." + tag, "9999999999.1.harbour." + tag,
            "2.9999999999999.harbour." + tag, "2.2000000000.harbour~." + tag,
            "2.2000000000." + Array(repeating: "a", count: 33).joined(separator: "~") + "." + tag,
            "2.2000000000." + String(repeating: "a", count: 129) + "." + tag,
            String(repeating: "9", count: 5000),
        ]
        for forged in forgeries {
            #expect(SignedToken.verified(Substring(forged), keys: [new, old]) == nil, "\(forged)")
        }
    }

    @Test func logsShowWhoWasLetInToWhatButNeverTheTag() {
        let text = SignedToken(keyID: 3, expires: 1_900_000_000, ids: ["a", "b"]).text(signedWith: ViewerKey.random(id: 3))
        let tag = String(text.suffix(64))
        let redacted = SignedToken.redacted("/signed/\(text)/dzi/a_files/9/0_0.jpeg")
        #expect(redacted == "/signed/3.1900000000.a~b.-/dzi/a_files/9/0_0.jpeg")
        #expect(!redacted.contains(tag))
        #expect(SignedToken.redacted("/signed/\(tag)") == "/signed/-")
        #expect(SignedToken.redacted("/dzi/a.dzi") == "/dzi/a.dzi")
    }

    @Test func idsATokenCanName() {
        #expect(SignedToken.isTokenID("tiger-0") && SignedToken.isTokenID("a") && SignedToken.isTokenID("scan_2"))
        for bad in ["", "Tiger", "a.b", "a~b", "a/b", "a b", "é", String(repeating: "a", count: 129)] {
            #expect(!SignedToken.isTokenID(Substring(bad)), "\(bad)")
        }
    }
}
