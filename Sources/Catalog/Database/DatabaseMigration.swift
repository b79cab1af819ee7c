/// One step of a schema's history: the SQL that takes the schema from `version - 1` to `version`.
///
/// A database records the last applied version in `PRAGMA user_version`; `Database` applies the
/// pending steps of an ordered list at open, all in one transaction. Steps are never edited once
/// shipped: a change is a new step.
public struct DatabaseMigration: Sendable {
    public let version: Int
    /// What the step does, for error messages.
    public let name: String
    /// One or more statements. Constant text written here, never built from input.
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
