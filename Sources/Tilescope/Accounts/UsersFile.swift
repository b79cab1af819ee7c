/// The operator's users file (`--users`): one user a line, `name:role:hash`, where `role` is `viewer` or
/// `admin` and `hash` a yescrypt or bcrypt hash (`tilescope hash-password`, or `mkpasswd -m yescrypt`).
/// Blank lines and lines starting with `#` are ignored. Names are 1 to 64 of `a-z A-Z 0-9 . _ @ -`, each
/// at most once. A malformed line refuses the whole file (the server does not start with half of it).
struct UsersFile: Sendable, Equatable {
    struct User: Sendable, Equatable {
        let name: String
        let role: UserRole
        let hash: PasswordHash
    }

    let users: [String: User]

    static let maxBytes = 1 << 20
    static let maxNameBytes = 64

    static let empty = UsersFile(users: [:])

    /// The users `text` lists, or the first line's reason it is refused.
    static func parse(_ text: String) throws(UsersFileError) -> UsersFile {
        guard text.utf8.count <= maxBytes else { throw UsersFileError("the users file is larger than \(maxBytes) bytes") }
        var users: [String: User] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.hasPrefix("#") { continue }
            let user: User
            do { user = try parseLine(line) } catch { throw UsersFileError("line \(index + 1): \(error.message)") }
            guard users[user.name] == nil else { throw UsersFileError("line \(index + 1): user '\(user.name)' is listed twice") }
            users[user.name] = user
        }
        return UsersFile(users: users)
    }

    /// Whether `name` could be a user's name (the login form's and the trusted header's check).
    static func isName<S: StringProtocol>(_ name: S) -> Bool {
        (1...maxNameBytes).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "-")
        }
    }

    private static func parseLine(_ line: Substring) throws(UsersFileError) -> User {
        let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { throw UsersFileError("a user is name:role:hash") }
        guard isName(fields[0]) else {
            throw UsersFileError("a name is 1 to \(maxNameBytes) letters, digits, '.', '_', '@' or '-'")
        }
        guard let role = UserRole(rawValue: String(fields[1])) else { throw UsersFileError("the role must be viewer or admin") }
        switch PasswordHash.parse(fields[2]) {
        case .success(let hash): return User(name: String(fields[0]), role: role, hash: hash)
        case .failure(let error): throw error
        }
    }
}
