import CCrypto
import ObjectStore

/// SHA-256 from OpenSSL's libcrypto: the catalog keeps a session cookie's digest, never the cookie.
enum SHA256Digest {
    static func hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress ?? UnsafePointer(output.baseAddress!), input.count, output.baseAddress, &length,
                           EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "SHA-256 failed")
        return Hex.encode(digest)
    }

    /// `count` bytes from the system's cryptographic generator, in lowercase hex.
    static func randomHex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
