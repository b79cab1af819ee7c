import Foundation
import TestSupport
@testable import Catalog

/// The two catalog engines, so one test runs against both: SQLite in a temporary folder, and
/// PostgreSQL in a fresh database of the test server (`PostgresCluster`).
enum CatalogEngine: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite
    case postgres

    var description: String { rawValue }

    /// A new, empty catalog. `reopen` gives a second, independent connection to the same one
    /// (another process, or another replica).
    func open() throws -> OpenCatalog {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder()
            let path = folder.path
            return try OpenCatalog(folder: folder) {
                let ratings = try SQLiteRatingStore(dataFolder: path)
                return (ratings, SQLiteBuildFailureStore(database: ratings.database), ratings.database)
            }
        case .postgres:
            let url = try PostgresCluster.freshDatabaseURL()
            return try OpenCatalog(folder: nil) {
                let database = try PostgresDatabase(url: url, migrations: PostgresSchema.migrations)
                return (PostgresRatingStore(database: database), PostgresBuildFailureStore(database: database), database)
            }
        }
    }
}

/// One engine's catalog stores, opened on one connection (pool).
struct OpenCatalog: Sendable {
    typealias Opener = @Sendable () throws -> (any RatingStore, any BuildFailureStore, any SQLDatabase)
    let ratings: any RatingStore
    let failures: any BuildFailureStore
    let identities: FileIdentities
    let database: any SQLDatabase
    /// Keeps the SQLite folder alive as long as the catalog.
    nonisolated(unsafe) let folder: TemporaryFolder?
    private let opener: Opener

    init(folder: TemporaryFolder?, _ opener: @escaping Opener) throws {
        self.folder = folder
        self.opener = opener
        (ratings, failures, database) = try opener()
        identities = FileIdentities(database: database)
    }

    /// The same catalog through a new connection.
    func reopen() throws -> OpenCatalog {
        try OpenCatalog(folder: folder, opener)
    }
}
