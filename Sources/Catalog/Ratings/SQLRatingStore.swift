import Foundation

/// Ratings and added dates in the `images` table, written once for both engines: SQLite's
/// `SQLiteRatingStore` and PostgreSQL's `PostgresRatingStore` differ only in the database they hold.
/// The few spellings that differ come from the database's `dialect`.
public protocol SQLRatingStore: RatingStore {
    var sqlDatabase: any SQLDatabase { get }
}

extension SQLRatingStore {
    public func rating(for id: String) throws -> Int? {
        try Self.check(id)
        let rows = try sqlDatabase.reading { try $0.query("SELECT rating FROM images WHERE id = ?", .text(id)) }
        return rows.first?["rating"].integer.map { Int($0) }
    }

    public func ratings(for ids: [String]) throws -> [String: Int] {
        guard !ids.isEmpty else { return [:] }
        let rows = try sqlDatabase.reading {
            try $0.query("SELECT id, rating FROM images WHERE rating IS NOT NULL AND id IN (SELECT value FROM \(values))",
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
        try sqlDatabase.writing {
            try $0.execute("""
                INSERT INTO images (id, added_ms, rating) VALUES (?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET rating = excluded.rating
                """, .text(id), .integer(Self.milliseconds(Date())), DatabaseValue(rating))
        }
    }

    public func removeRating(for id: String) throws {
        try Self.check(id)
        try sqlDatabase.writing { try $0.execute("UPDATE images SET rating = NULL WHERE id = ?", .text(id)) }
    }

    @discardableResult
    public func recordSeen(_ ids: [String], at date: Date) throws -> [String: Date] {
        guard !ids.isEmpty else { return [:] }
        for id in ids { try Self.check(id) }
        let list = DatabaseValue.text(try Self.jsonArray(ids))
        let rows = try sqlDatabase.writing { transaction in
            // `WHERE true` tells SQLite's parser the ON CONFLICT belongs to the INSERT, not a join; the
            // CAST gives PostgreSQL the parameter's type.
            try transaction.execute("""
                INSERT INTO images (id, added_ms) SELECT value, CAST(? AS BIGINT) FROM \(values) WHERE true
                ON CONFLICT (id) DO NOTHING
                """, .integer(Self.milliseconds(date)), list)
            return try transaction.query("SELECT id, added_ms FROM images WHERE id IN (SELECT value FROM \(values))", list)
        }
        return Self.dates(rows)
    }

    public func addedDates(for ids: [String]) throws -> [String: Date] {
        guard !ids.isEmpty else { return [:] }
        let rows = try sqlDatabase.reading {
            try $0.query("SELECT id, added_ms FROM images WHERE id IN (SELECT value FROM \(values))",
                         .text(try Self.jsonArray(ids)))
        }
        return Self.dates(rows)
    }

    public func forget(_ id: String) throws {
        try Self.check(id)
        try sqlDatabase.writing { try $0.execute("DELETE FROM images WHERE id = ?", .text(id)) }
    }

    // MARK: - Internals

    /// The ids of one JSON-array parameter as rows, in this engine's spelling.
    private var values: String { sqlDatabase.dialect.jsonArrayValues }

    private static func check(_ id: String) throws(RatingError) {
        if id.isEmpty { throw .emptyID }
    }

    /// The ids as one JSON array, bound as a single parameter and unpacked as rows (`values`): one
    /// cached statement for any number of ids, with no SQL built from them.
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
