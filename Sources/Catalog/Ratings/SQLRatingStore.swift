import Foundation

/// Ratings (`viewer_ratings`) and added dates (`images`), written once for both engines: SQLite's
/// `SQLiteRatingStore` and PostgreSQL's `PostgresRatingStore` differ only in the database they hold.
/// The few spellings that differ come from the database's `dialect`.
public protocol SQLRatingStore: RatingStore {
    var sqlDatabase: any SQLDatabase { get }
}

extension SQLRatingStore {
    public func summaries(for ids: [String], viewer: ViewerID?) throws -> [String: RatingSummary] {
        guard !ids.isEmpty else { return [:] }
        for id in ids { try Self.check(id) }
        let list = DatabaseValue.text(try Self.jsonArray(ids))
        let rows = try sqlDatabase.reading { try summaryRows($0, list, viewer) }
        return Self.summaries(rows)
    }

    @discardableResult
    public func setRating(_ rating: Int, for id: String, by viewer: ViewerID) throws -> RatingSummary {
        try Self.check(id)
        let rating = try Rating.validated(rating)
        let now = DatabaseValue.integer(Self.milliseconds(Date()))
        try sqlDatabase.writing { transaction in
            try transaction.execute("INSERT INTO images (id, added_ms) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", .text(id), now)
            try transaction.execute("""
                INSERT INTO viewer_ratings (image_id, viewer, rating, rated_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (image_id, viewer) DO UPDATE SET rating = excluded.rating, rated_ms = excluded.rated_ms
                """, .text(id), .text(viewer.hex), DatabaseValue(rating), now)
        }
        // The summary is read after the write commits, not inside it: in a serializable transaction the
        // aggregate over the image's ratings conflicts with every other viewer rating the same image at
        // the same time, and a thousand concurrent viewers then spent their retries on each other. Read
        // apart, it is the state just after this rating landed (others' ratings included).
        let rows = try sqlDatabase.reading { try summaryRows($0, .text(try Self.jsonArray([id])), viewer) }
        return Self.summaries(rows)[id] ?? RatingSummary(own: rating, total: rating, count: 1)
    }

    public func removeRating(for id: String, by viewer: ViewerID) throws {
        try Self.check(id)
        try sqlDatabase.writing {
            try $0.execute("DELETE FROM viewer_ratings WHERE image_id = ? AND viewer = ?", .text(id), .text(viewer.hex))
        }
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
        try sqlDatabase.writing {
            try $0.execute("DELETE FROM viewer_ratings WHERE image_id = ?", .text(id))
            try $0.execute("DELETE FROM images WHERE id = ?", .text(id))
        }
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

    /// One row per rated image of the JSON-array parameter `list`: the sum and count of every viewer's
    /// rating and `viewer`'s own (NULL when they have none, or when no viewer is named).
    private func summaryRows(_ statements: any SQLStatements, _ list: DatabaseValue, _ viewer: ViewerID?) throws -> [DatabaseRow] {
        // The sum, not AVG: whole numbers on both engines (PostgreSQL's AVG is numeric), divided once in Swift.
        try statements.query("""
            SELECT image_id, SUM(rating) AS total, COUNT(*) AS count, MAX(CASE WHEN viewer = ? THEN rating END) AS own
            FROM viewer_ratings WHERE image_id IN (SELECT value FROM \(values)) GROUP BY image_id
            """, .text(viewer?.hex ?? ""), list)
    }

    private static func summaries(_ rows: [DatabaseRow]) -> [String: RatingSummary] {
        var summaries: [String: RatingSummary] = [:]
        for row in rows {
            guard let id = row["image_id"].text, let total = row["total"].integer, let count = row["count"].integer else { continue }
            summaries[id] = RatingSummary(own: row["own"].integer.map { Int($0) }, total: Int(total), count: Int(count))
        }
        return summaries
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
