import Foundation

/// Failed builds in the `build_failures` table of the catalog database (`CatalogSchema`); the
/// statements are `SQLBuildFailureStore`'s, shared with PostgreSQL.
public struct SQLiteBuildFailureStore: SQLBuildFailureStore {
    public let database: Database
    public var sqlDatabase: any SQLDatabase { database }

    /// Uses `database`, which must have been opened with `CatalogSchema.migrations`.
    public init(database: Database) {
        self.database = database
    }
}
