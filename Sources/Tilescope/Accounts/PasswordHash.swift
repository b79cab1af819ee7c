import CCrypt
import CCrypto

/// A user's password hash from the users file, checked with libxcrypt's `crypt_r`: yescrypt (`$y$`) or
/// bcrypt (`$2b$`, `$2y$`, `$2a$`). Other schemes (MD5, SHA-crypt, DES) are refused when the file is read:
/// they are fast to guess. The hash is never logged (`description` hides it).
struct PasswordHash: Sendable, Equatable, CustomStringConvertible {
    let text: String

    static let schemes = ["$y$", "$2b$", "$2y$", "$2a$"]
    /// Longer passwords are refused before hashing (bcrypt reads 72 bytes; yescrypt's cost does not need more).
    static let maxPasswordBytes = 1024

    /// `text` if it is a yescrypt or bcrypt hash libxcrypt can read, else the reason it is not.
    static func parse(_ text: Substring) -> Result<PasswordHash, UsersFileError> {
        guard schemes.contains(where: { text.hasPrefix($0) }) else {
            return .failure(.init("the password hash must be yescrypt ($y$...) or bcrypt ($2b$...)"))
        }
        guard text.utf8.count < Int(CRYPT_OUTPUT_SIZE),
              text.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
            return .failure(.init("the password hash has characters no crypt hash has"))
        }
        // libxcrypt must read it as a setting: a hash it cannot parse would refuse every password silently.
        guard hash("", setting: String(text)) != nil else { return .failure(.init("libxcrypt cannot read this password hash")) }
        return .success(PasswordHash(text: String(text)))
    }

    /// Whether `password` hashes to this hash; the two hashes compared in constant time.
    func matches(_ password: String) -> Bool {
        guard password.utf8.count <= Self.maxPasswordBytes, !password.utf8.contains(0),
              let computed = Self.hash(password, setting: text) else { return false }
        let a = Array(computed.utf8), b = Array(text.utf8)
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }

    /// A new yescrypt hash of `password` with a fresh salt (libxcrypt's default cost): what
    /// `tilescope hash-password` prints. Nil if libxcrypt refuses.
    static func yescrypt(_ password: String) -> String? {
        var salt = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        // Null random bytes: libxcrypt draws them from the system's generator (getrandom).
        guard crypt_gensalt_rn("$y$", 0, nil, 0, &salt, Int32(salt.count)) != nil else { return nil }
        return hash(password, setting: String(cString: salt))
    }

    /// crypt_r's output for `password` under `setting` (a salt or a whole hash), nil on failure (libxcrypt
    /// answers a string starting with `*` then, never a hash).
    private static func hash(_ password: String, setting: String) -> String? {
        // struct crypt_data is about 32 KB: on the heap, not a server thread's stack.
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        guard let output = crypt_r(password, setting, data) else { return nil }
        let text = String(cString: output)
        return text.hasPrefix("*") ? nil : text
    }

    var description: String { "password hash (\(Self.schemes.first { text.hasPrefix($0) } ?? "?"))" }
}

/// What the command line needs of password hashing: `tilescope hash-password`.
public enum UserPasswords {
    /// A yescrypt hash of `password` with a fresh salt, for the users file; nil if libxcrypt refuses.
    public static func yescrypt(_ password: String) -> String? {
        guard password.utf8.count <= PasswordHash.maxPasswordBytes, !password.utf8.contains(0) else { return nil }
        return PasswordHash.yescrypt(password)
    }
}
