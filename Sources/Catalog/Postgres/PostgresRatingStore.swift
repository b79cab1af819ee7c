import Foundation

/// Ratings and added dates in the `images` table of a PostgreSQL catalog (`PostgresSchema`),
/// shared by every replica: the same calls and answers as `SQLiteRatingStore`.
public struct PostgresRatingStore: RatingStore {
    public let database: PostgresDatabase

    /// Uses `database`, which must have been opened with `PostgresSchema.migrations`.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func rating(for id: String) throws -> Int? {
        try Self.check(id)
        let rows = try database.reading { try $0.query("SELECT rating FROM images WHERE id = ?", .text(id)) }
        return rows.first?["rating"].integer.map { Int($0) }
    }

    public func ratings(for ids: [String]) throws -> [String: Int] {
        guard !ids.isEmpty else { return [:] }
        let rows = try database.reading {
            try $0.query("SELECT id, rating FROM images WHERE rating IS NOT NULL AND id IN (SELECT value FROM \(Self.values))",
                         .text(try Self.jsonArray(ids)))
        }
        var ratings: [String: Int] = [:]
        for row in rows {
            if let id = row["id"].text, let rating = row["rating"].integer { ratings[id] = Int(rating) }
        }
        return ratings
    }

    public func setRating(_ rating: Int, for id: String) throws {
        try Self.check(id)
        let rating = try Rating.validated(rating)
        try database.writing {
            try $0.execute("""
                INSERT INTO images (id, added_ms, rating) VALUES (?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET rating = excluded.rating
                """, .text(id), .integer(Self.milliseconds(Date())), DatabaseValue(rating))
        }
    }

    public func removeRating(for id: String) throws {
        try Self.check(id)
        try database.writing { try $0.execute("UPDATE images SET rating = NULL WHERE id = ?", .text(id)) }
    }

    @discardableResult
    public func recordSeen(_ ids: [String], at date: Date) throws -> [String: Date] {
        guard !ids.isEmpty else { return [:] }
        for id in ids { try Self.check(id) }
        let list = DatabaseValue.text(try Self.jsonArray(ids))
        let rows = try database.writing { transaction in
            try transaction.execute("""
                INSERT INTO images (id, added_ms) SELECT value, CAST(? AS bigint) FROM \(Self.values)
                ON CONFLICT (id) DO NOTHING
                """, .integer(Self.milliseconds(date)), list)
            return try transaction.query("SELECT id, added_ms FROM images WHERE id IN (SELECT value FROM \(Self.values))", list)
        }
        return Self.dates(rows)
    }

    public func addedDates(for ids: [String]) throws -> [String: Date] {
        guard !ids.isEmpty else { return [:] }
        let rows = try database.reading {
            try $0.query("SELECT id, added_ms FROM images WHERE id IN (SELECT value FROM \(Self.values))",
                         .text(try Self.jsonArray(ids)))
        }
        return Self.dates(rows)
    }

    public func forget(_ id: String) throws {
        try Self.check(id)
        try database.writing { try $0.execute("DELETE FROM images WHERE id = ?", .text(id)) }
    }

    // MARK: - Internals

    private static let values = SQLDialect.postgres.jsonArrayValues

    private static func check(_ id: String) throws(RatingError) {
        if id.isEmpty { throw .emptyID }
    }

    private static func jsonArray(_ ids: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private static func dates(_ rows: [DatabaseRow]) -> [String: Date] {
        var dates: [String: Date] = [:]
        for row in rows {
            if let id = row["id"].text, let ms = row["added_ms"].integer {
                dates[id] = Date(timeIntervalSince1970: Double(ms) / 1000)
            }
        }
        return dates
    }
}
