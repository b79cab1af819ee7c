import Catalog
import Foundation

/// The catalog's stores for one server, on the engine `--database` names: SQLite in the data
/// folder (one server), or a PostgreSQL shared by replicas, with build leases so that each pyramid
/// is built once across them (docs/scale-out.md).
struct CatalogStores: Sendable {
    let ratings: any RatingStore
    let failures: any BuildFailureStore
    let identities: FileIdentities
    let leases: any BuildLeases
    /// The library remembered between runs, so a restart serves before it has scanned the folder.
    let images: any ImageCatalogStore
    /// The keys viewer cookies are signed with, shared by every server of the catalog.
    let viewerKeys: ViewerKeys
    /// Signed-in users' sessions, shared by every server of the catalog.
    let sessions: UserSessions
    /// This server's name in logs, metrics and leases.
    let replica: String
    /// Nil when the database answers, else why not; nil for SQLite (a file in the data folder,
    /// which has its own readiness checks).
    let probe: (@Sendable () -> String?)?
    /// The staging folder's name in the data folder: one per replica when replicas share it.
    let stagingName: String
    /// Where the catalog is, for the start-up line (never a password).
    let description: String

    static func open(_ config: ServeConfig) throws -> CatalogStores {
        let replica = config.replicaID.isEmpty ? defaultReplicaID() : config.replicaID
        // Stable across restarts (a restarted replica wipes what its predecessor left); the builds
        // themselves never share a folder: each process has its own owner folder in it (`StagingArea`).
        let stagingReplica = config.replicaID.isEmpty ? hostName() : config.replicaID
        guard !config.databaseURL.isEmpty else {
            try FileManager.default.createDirectory(atPath: config.dataFolder, withIntermediateDirectories: true)
            let ratings = try SQLiteRatingStore(dataFolder: config.dataFolder)
            return CatalogStores(ratings: ratings, failures: SQLiteBuildFailureStore(database: ratings.database),
                                 identities: FileIdentities(database: ratings.database), leases: LocalBuildLeases(),
                                 images: SQLImageCatalogStore(database: ratings.database),
                                 viewerKeys: ViewerKeys(database: ratings.database),
                                 sessions: UserSessions(database: ratings.database),
                                 replica: replica, probe: nil, stagingName: "staging", description: ratings.database.path)
        }
        let database = try PostgresDatabase(url: config.databaseURL, poolSize: max(2, config.workerThreads + 1),
                                            migrations: PostgresSchema.migrations)
        return CatalogStores(ratings: PostgresRatingStore(database: database),
                             failures: PostgresBuildFailureStore(database: database),
                             identities: FileIdentities(database: database),
                             leases: PostgresBuildLeases(database: database, holder: replica, leaseSeconds: config.buildLeaseSeconds),
                             images: SQLImageCatalogStore(database: database),
                             viewerKeys: ViewerKeys(database: database),
                             sessions: UserSessions(database: database),
                             replica: replica, probe: { database.probe() }, stagingName: "staging-\(stagingReplica)",
                             description: database.displayURL)
    }

    /// The host name and the process id: two servers on one host (sharing a PostgreSQL catalog, or
    /// just its folders) are two lease holders by default, never one that both take for itself.
    static func defaultReplicaID() -> String {
        "\(hostName())-\(getpid())"
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "tilescope" }
        let name = String(cString: buffer)
        return name.isEmpty ? "tilescope" : name
    }
}
