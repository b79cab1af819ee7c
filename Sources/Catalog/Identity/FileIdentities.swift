import Foundation

/// Which image id each source file has: given once, when the catalog first sees the file's name,
/// and kept in the catalog's `image_files` table for good.
///
/// A file's identity is its name in the images folder. A binding is never changed or removed:
/// a file that disappears keeps its id reserved (and gets it back, with its rating, if it
/// returns), a deleted image's id stays bound to its name, and a new name never takes an id that
/// any name ever had. So an id cannot move to another file, whatever order files come and go in.
/// See docs/ids.md.
///
/// Thread-safe. Bindings are cached in memory: they never change, so the cache never goes stale,
/// and a scan of a known folder costs no database access.
public final class FileIdentities: @unchecked Sendable { // @unchecked: `known` is behind `lock`.
    public let database: any SQLDatabase
    private let lock = NSLock()
    /// File name -> id, every binding this process has read or made.
    private var known = FileNameIDs()

    /// Uses `database`, which must have been opened with `CatalogSchema.migrations` (SQLite) or
    /// `PostgresSchema.migrations`.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// The id of every one of `names`, binding an id to each name never seen before.
    ///
    /// `names` should be the whole folder: new names are given ids together, in byte order of
    /// their names (so one batch always comes out the same), and the first call after a catalog
    /// migration adopts the ids the folder's files had before ids were kept.
    public func ids(for names: [String]) throws -> [String: String] {
        try lock.withLock {
            if names.contains(where: { known[$0] == nil }) { try bindNew(present: names) }
            var ids: [String: String] = [:]
            for name in names { ids[name] = known[name] }
            return ids
        }
    }

    /// Whether the catalog has ever bound an id to any name: false for a folder seen for the first
    /// time, whose ids then depend on nothing but its own names.
    public func hasBindings() throws -> Bool {
        try lock.withLock {
            guard known.isEmpty else { return true }
            return try !database.reading { try $0.query("SELECT 1 FROM image_files LIMIT 1") }.isEmpty
        }
    }

    /// The id bound to `name`, if the catalog has ever seen it.
    public func id(of name: String) throws -> String? {
        try lock.withLock {
            if let id = known[name] { return id }
            let rows = try database.reading { try $0.query("SELECT id FROM image_files WHERE file_name = ?", .text(name)) }
            guard let id = rows.first?["id"].text else { return nil }
            known.add([(name, id)])
            return id
        }
    }

    // MARK: - Internals

    /// Reads what other processes bound meanwhile, adopts pre-migration ids, then gives every
    /// name still unbound its first free candidate, all in one write transaction.
    private func bindNew(present names: [String]) throws {
        let unknown = Set(names.filter { known[$0] == nil })
        let values = database.dialect.jsonArrayValues
        let bound = try database.writing { transaction -> [(name: String, id: String)] in
            var bound: [(name: String, id: String)] = []
            for row in try transaction.query("SELECT id, file_name FROM image_files WHERE file_name IN (SELECT value FROM \(values))",
                                             .text(try Self.jsonArray(Array(unknown)))) {
                if let id = row["id"].text, let name = row["file_name"].text { bound.append((name, id)) }
            }
            let alreadyBound = Set(bound.map(\.name))
            var unbound = unknown.filter { !alreadyBound.contains($0) }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            guard !unbound.isEmpty else { return bound }
            bound += try adoptLegacyIDs(&unbound, present: names, transaction)
            var taken = Set(try transaction.query("SELECT id FROM image_files").compactMap { $0["id"].text })
            // Plain slugs first, so that in one batch "tiger.png" cannot take "tiger-png" from "tiger-png.gif".
            var chosen: [(name: String, id: String)] = []
            for name in unbound {
                let slug = ImageID.slug(of: name)
                if !taken.contains(slug) {
                    chosen.append((name, slug))
                    taken.insert(slug)
                }
            }
            let named = Set(chosen.map(\.name))
            for name in unbound where !named.contains(name) {
                let id = ImageID.candidates(for: name).first { !taken.contains($0) }!  // the candidates never end
                chosen.append((name, id))
                taken.insert(id)
            }
            for (name, id) in chosen {
                try transaction.execute("INSERT INTO image_files (id, file_name) VALUES (?, ?)", .text(id), .text(name))
            }
            return bound + chosen
        }
        // Only once committed: a rolled-back binding must not be remembered.
        known.add(bound)
    }

    /// A catalog migrated from before ids were kept lists its ids with no file (`legacy = 1`).
    /// The first binding after the migration gives each present file the id the old scheme gave
    /// it, if the catalog knows that id, so ratings stay with their files; the ids left over stay
    /// reserved, bound to no name, for good.
    private func adoptLegacyIDs(_ unbound: inout [String], present names: [String],
                                _ transaction: any SQLStatements) throws -> [(name: String, id: String)] {
        let legacy = Set(try transaction.query("SELECT id FROM image_files WHERE legacy = 1").compactMap { $0["id"].text })
        guard !legacy.isEmpty else { return [] }
        let old = ImageID.legacyAssign(names)
        var adopted: [(name: String, id: String)] = []
        for name in unbound {
            guard let id = old[name], legacy.contains(id) else { continue }
            try transaction.execute("UPDATE image_files SET file_name = ?, legacy = 0 WHERE id = ?", .text(name), .text(id))
            adopted.append((name, id))
        }
        try transaction.execute("UPDATE image_files SET legacy = 0 WHERE legacy = 1")
        let names = Set(adopted.map(\.name))
        unbound.removeAll { names.contains($0) }
        return adopted
    }

    private static func jsonArray(_ names: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
    }
}
