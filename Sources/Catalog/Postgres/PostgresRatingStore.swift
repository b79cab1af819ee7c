import Foundation

/// Ratings and added dates in the `images` table of a PostgreSQL catalog (`PostgresSchema`),
/// shared by every replica: the same statements as `SQLiteRatingStore` (`SQLRatingStore`).
public struct PostgresRatingStore: SQLRatingStore {
    public let database: PostgresDatabase
    public var sqlDatabase: any SQLDatabase { database }

    /// Uses `database`, which must have been opened with `PostgresSchema.migrations`.
    public init(database: PostgresDatabase) {
        self.database = database
    }
}
