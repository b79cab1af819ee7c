import Foundation

/// The keys viewer cookies are signed with, in the catalog's `viewer_keys` table: the catalog is the one
/// place every replica already shares (SQLite in the data folder for one server, PostgreSQL for a fleet),
/// so every replica signs and verifies with the same keys without a file to copy between machines.
///
/// The first server to start creates key 1; `rotate` adds a newer key, which signs from then on while
/// every older key still verifies (a cookie stays valid until its key is deleted from the table).
public struct ViewerKeys: Sendable {
    public let database: any SQLDatabase

    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Every key, newest first; key 1 is created first if the table is empty. Two replicas starting
    /// together both try to create it: one wins, and both read the winner's.
    public func all() throws -> [ViewerKey] {
        let first = ViewerKey.random(id: 1)
        let rows = try database.writing { transaction in
            try transaction.execute("INSERT INTO viewer_keys (id, secret, created_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
                                    .text(Self.hex(first.secret)), .integer(Self.now()))
            return try transaction.query("SELECT id, secret FROM viewer_keys ORDER BY id DESC")
        }
        return Self.keys(rows)
    }

    /// Every key, newest first, read only (a server's periodic re-read: no write transaction).
    public func current() throws -> [ViewerKey] {
        Self.keys(try database.reading { try $0.query("SELECT id, secret FROM viewer_keys ORDER BY id DESC") })
    }

    private static func keys(_ rows: [DatabaseRow]) -> [ViewerKey] {
        rows.compactMap { row in
            guard let id = row["id"].integer, let text = row["secret"].text, let secret = Self.bytes(hex: text) else { return nil }
            return ViewerKey(id: Int(id), secret: secret)
        }
    }

    /// Adds a key newer than every other and returns it: it signs new cookies from the next time each
    /// server reads the keys; older keys keep verifying the cookies they signed.
    @discardableResult
    public func rotate() throws -> ViewerKey {
        try database.writing { transaction in
            let rows = try transaction.query("SELECT COALESCE(MAX(id), 0) AS newest FROM viewer_keys")
            let key = ViewerKey.random(id: Int(rows.first?["newest"].integer ?? 0) + 1)
            try transaction.execute("INSERT INTO viewer_keys (id, secret, created_ms) VALUES (?, ?, ?)",
                                    .integer(Int64(key.id)), .text(Self.hex(key.secret)), .integer(Self.now()))
            return key
        }
    }

    // MARK: - Internals

    private static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined()
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        case 65...70: digit - 55
        default: nil
        }
    }
}
