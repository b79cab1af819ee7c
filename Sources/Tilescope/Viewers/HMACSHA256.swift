import CCrypto

/// HMAC-SHA256 and constant-time comparison from OpenSSL's libcrypto, for signing viewer cookies.
/// (ObjectStore has the same two calls for S3 signing; Tilescope uses the C library directly rather
/// than depending on the object-storage module for them.)
enum HMACSHA256 {
    static let length = 32

    /// The MAC of `message` under `key`.
    static func mac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                mac.withUnsafeMutableBufferPointer { output in
                    // Non-null pointers even for empty input: HMAC reads `count` bytes of them.
                    HMAC(EVP_sha256(), UnsafeRawPointer(keyBytes.baseAddress ?? UnsafePointer(output.baseAddress!)), Int32(keyBytes.count),
                         messageBytes.baseAddress ?? UnsafePointer(output.baseAddress!), messageBytes.count,
                         output.baseAddress, &written)
                }
            }
        }
        // HMAC fails only when libcrypto cannot allocate: nothing sensible is left to do.
        precondition(result != nil && written == UInt32(length), "HMAC(SHA-256) failed")
        return mac
    }

    /// Whether two MACs are equal, in time that does not depend on where they differ (CRYPTO_memcmp):
    /// answering a forged cookie teaches its sender nothing about the right tag.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }
}
