import ObjectStore
import XCTest

/// libcrypto through CCrypto: SHA-256 (FIPS 180-2 examples), HMAC-SHA256 (RFC 4231 test cases) and
/// the SigV4 signing-key derivation example of AWS's documentation.
final class SHA256Tests: XCTestCase {
    func testDigests() {
        XCTAssertEqual(SHA256.hexHash(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexHash([UInt8]()), SigV4Signer.emptyPayloadHash)
        XCTAssertEqual(SHA256.hexHash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testHMACOfRFC4231() {
        XCTAssertEqual(Hex.encode(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(Hex.encode(SHA256.hmac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // A key longer than the block is hashed first.
        XCTAssertEqual(Hex.encode(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131),
                                              Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        XCTAssertEqual(SHA256.hmac(key: [UInt8](), [UInt8]()).count, 32, "empty key and message")
    }

    /// "Examples of how to derive a signing key for Signature Version 4" (AWS General Reference).
    func testSigningKeyDerivation() {
        let signer = SigV4Signer(credentials: SigV4Credentials(accessKeyID: "AKIDEXAMPLE",
                                                               secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
                                 region: "us-east-1", service: "iam", pathRules: .generic)
        XCTAssertEqual(Hex.encode(signer.signingKey(day: "20120215")),
                       "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    func testConstantTimeEqual() {
        let mac = SHA256.hmac(key: Array("k".utf8), Array("m".utf8))
        var other = mac
        XCTAssertTrue(SHA256.constantTimeEqual(mac, other))
        other[31] ^= 1
        XCTAssertFalse(SHA256.constantTimeEqual(mac, other))
        XCTAssertFalse(SHA256.constantTimeEqual(mac, Array(mac.prefix(31))))
        XCTAssertTrue(SHA256.constantTimeEqual([], []))
    }

    func testHex() {
        XCTAssertEqual(Hex.decode("00ffA0"), [0, 255, 160])
        XCTAssertNil(Hex.decode("abc"))
        XCTAssertNil(Hex.decode("zz"))
        XCTAssertEqual(Hex.encode([0, 255, 160]), "00ffa0")
    }
}
