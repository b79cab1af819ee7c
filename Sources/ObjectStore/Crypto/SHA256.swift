import CCrypto
import Foundation

/// SHA-256 and HMAC-SHA256 from OpenSSL's libcrypto: what SigV4 hashes and signs with.
public enum SHA256 {
    public static let digestLength = 32

    /// The digest of `bytes`.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only when libcrypto cannot allocate: nothing sensible is left to do.
        precondition(ok == 1 && length == UInt32(digestLength), "EVP_Digest(SHA-256) failed")
        return digest
    }

    /// The lowercase hexadecimal digest of `bytes` (SigV4's payload and canonical-request hashes).
    public static func hexHash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        Hex.encode(hash(bytes))
    }

    /// HMAC-SHA256 of `message` under `key`.
    public static func hmac<Key: ContiguousBytes, Message: ContiguousBytes>(key: Key, _ message: Message) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                mac.withUnsafeMutableBufferPointer { output in
                    // A non-null pointer even for an empty key or message: HMAC reads `count` bytes of it.
                    HMAC(EVP_sha256(), keyBytes.baseAddress ?? UnsafeRawPointer(output.baseAddress!), Int32(keyBytes.count),
                         messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(output.baseAddress!),
                         messageBytes.count, output.baseAddress, &length)
                }
            }
        }
        precondition(result != nil && length == UInt32(digestLength), "HMAC(SHA-256) failed")
        return mac
    }

    /// Whether two MACs are equal, in time that does not depend on where they differ (CRYPTO_memcmp),
    /// so comparing a received signature with the expected one leaks nothing about the expected one.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }
}
