import Foundation

/// Failed builds in the `build_failures` table of a PostgreSQL catalog (`PostgresSchema`), shared by
/// every replica: a file that failed on one is not built again by another.
public struct PostgresBuildFailureStore: SQLBuildFailureStore {
    public let database: PostgresDatabase
    public var sqlDatabase: any SQLDatabase { database }

    public init(database: PostgresDatabase) {
        self.database = database
    }
}
