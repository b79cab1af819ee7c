import Foundation

/// Ratings and added dates in the `images` table of the catalog database (`CatalogSchema`).
public struct SQLiteRatingStore: RatingStore {
    public let database: Database

    /// Uses `database`, which must have been opened with `CatalogSchema.migrations`.
    public init(database: Database) {
        self.database = database
    }

    /// Opens (creating and migrating as needed) `catalog.sqlite` in `dataFolder`, which must exist.
    public init(dataFolder: String) throws {
        let path = URL(fileURLWithPath: dataFolder).appendingPathComponent(CatalogSchema.fileName).path
        self.init(database: try Database(path: path, migrations: CatalogSchema.migrations))
    }

    public func rating(for id: String) throws -> Int? {
        try Self.check(id)
        let rows = try database.read { try $0.query("SELECT rating FROM images WHERE id = ?", .text(id)) }
        return rows.first?["rating"].integer.map { Int($0) }
    }

    public func ratings(for ids: [String]) throws -> [String: Int] {
        guard !ids.isEmpty else { return [:] }
        let rows = try database.read {
            try $0.query("SELECT id, rating FROM images WHERE rating IS NOT NULL AND id IN (SELECT value FROM json_each(?))",
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
        try database.write {
            try $0.execute("""
                INSERT INTO images (id, added_ms, rating) VALUES (?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET rating = excluded.rating
                """, .text(id), .integer(Self.milliseconds(Date())), DatabaseValue(rating))
        }
    }

    public func removeRating(for id: String) throws {
        try Self.check(id)
        try database.write { try $0.execute("UPDATE images SET rating = NULL WHERE id = ?", .text(id)) }
    }

    @discardableResult
    public func recordSeen(_ ids: [String], at date: Date) throws -> [String: Date] {
        guard !ids.isEmpty else { return [:] }
        for id in ids { try Self.check(id) }
        let list = DatabaseValue.text(try Self.jsonArray(ids))
        let rows = try database.write { transaction in
            // `WHERE true` tells SQLite's parser the ON CONFLICT belongs to the INSERT, not a join.
            try transaction.execute("""
                INSERT INTO images (id, added_ms) SELECT value, ? FROM json_each(?) WHERE true
                ON CONFLICT (id) DO NOTHING
                """, .integer(Self.milliseconds(date)), list)
            return try transaction.query("SELECT id, added_ms FROM images WHERE id IN (SELECT value FROM json_each(?))", list)
        }
        return Self.dates(rows)
    }

    public func addedDates(for ids: [String]) throws -> [String: Date] {
        guard !ids.isEmpty else { return [:] }
        let rows = try database.read {
            try $0.query("SELECT id, added_ms FROM images WHERE id IN (SELECT value FROM json_each(?))",
                         .text(try Self.jsonArray(ids)))
        }
        return Self.dates(rows)
    }

    public func forget(_ id: String) throws {
        try Self.check(id)
        try database.write { try $0.execute("DELETE FROM images WHERE id = ?", .text(id)) }
    }

    // MARK: - Internals

    private static func check(_ id: String) throws(RatingError) {
        if id.isEmpty { throw .emptyID }
    }

    /// The ids as one JSON array, bound as a single parameter and unpacked by `json_each`: one
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
