import Foundation

/// Failed builds in the `build_failures` table, written once for both engines
/// (`SQLiteBuildFailureStore`, `PostgresBuildFailureStore`).
public protocol SQLBuildFailureStore: BuildFailureStore {
    var sqlDatabase: any SQLDatabase { get }
}

extension SQLBuildFailureStore {
    public func record(_ failure: BuildFailure) throws {
        try sqlDatabase.writing {
            try $0.execute("""
                INSERT INTO build_failures (file_name, version, reason, failed_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (file_name) DO UPDATE SET
                    version = excluded.version, reason = excluded.reason, failed_ms = excluded.failed_ms
                """, .text(failure.fileName), .text(failure.version), .text(failure.reason),
                .integer(Int64(Date().timeIntervalSince1970 * 1000)))
        }
    }

    public func failure(fileName: String, version: String) throws -> BuildFailure? {
        let rows = try sqlDatabase.reading {
            try $0.query("SELECT reason FROM build_failures WHERE file_name = ? AND version = ?",
                         .text(fileName), .text(version))
        }
        guard let reason = rows.first?["reason"].text else { return nil }
        return BuildFailure(fileName: fileName, version: version, reason: reason)
    }

    public func forget(fileName: String) throws {
        try sqlDatabase.writing { try $0.execute("DELETE FROM build_failures WHERE file_name = ?", .text(fileName)) }
    }
}
