import Foundation

/// Ratings and added dates in the `images` table of the catalog database (`CatalogSchema`); the
/// statements are `SQLRatingStore`'s, shared with PostgreSQL.
public struct SQLiteRatingStore: SQLRatingStore {
    public let database: Database
    public var sqlDatabase: any SQLDatabase { database }

    /// Uses `database`, which must have been opened with `CatalogSchema.migrations`.
    public init(database: Database) {
        self.database = database
    }

    /// Opens (creating and migrating as needed) `catalog.sqlite` in `dataFolder`, which must exist.
    public init(dataFolder: String) throws {
        let path = URL(fileURLWithPath: dataFolder).appendingPathComponent(CatalogSchema.fileName).path
        self.init(database: try Database(path: path, migrations: CatalogSchema.migrations))
    }
}
