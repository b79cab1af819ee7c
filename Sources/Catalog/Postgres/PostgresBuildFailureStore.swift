import Foundation

/// Failed builds in the `build_failures` table of a PostgreSQL catalog (`PostgresSchema`), shared by
/// every replica: a file that failed on one is not built again by another.
public struct PostgresBuildFailureStore: BuildFailureStore {
    public let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func record(_ failure: BuildFailure) throws {
        try database.writing {
            try $0.execute("""
                INSERT INTO build_failures (file_name, version, reason, failed_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (file_name) DO UPDATE SET
                    version = excluded.version, reason = excluded.reason, failed_ms = excluded.failed_ms
                """, .text(failure.fileName), .text(failure.version), .text(failure.reason),
                .integer(Int64(Date().timeIntervalSince1970 * 1000)))
        }
    }

    public func failure(fileName: String, version: String) throws -> BuildFailure? {
        let rows = try database.reading {
            try $0.query("SELECT reason FROM build_failures WHERE file_name = ? AND version = ?",
                         .text(fileName), .text(version))
        }
        guard let reason = rows.first?["reason"].text else { return nil }
        return BuildFailure(fileName: fileName, version: version, reason: reason)
    }

    public func forget(fileName: String) throws {
        try database.writing { try $0.execute("DELETE FROM build_failures WHERE file_name = ?", .text(fileName)) }
    }
}
