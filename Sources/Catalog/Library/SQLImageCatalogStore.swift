import Foundation

/// The remembered library in the `library_images` table of the catalog database, on either engine
/// (`CatalogSchema` for SQLite, `PostgresSchema` for PostgreSQL: the same columns, the same SQL).
public struct SQLImageCatalogStore: ImageCatalogStore {
    public let database: any SQLDatabase

    /// Uses `database`, which must have been opened with its engine's catalog migrations.
    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Rows are read in batches of `batchSize` (by id), so restoring 100,000 images never holds
    /// 100,000 rows at once: their memory is reused batch after batch instead of being left as holes
    /// between the records that outlive them.
    public func all() throws -> [CataloguedImage] {
        var images: [CataloguedImage] = []
        var after = ""
        while true {
            let rows = try database.reading {
                try $0.query("""
                    SELECT id, file_name, size, modified_ns, version, width, height, tile_size, overlap, alpha, direct, mpp_x, mpp_y,
                        associated
                    FROM library_images WHERE id > ? ORDER BY id LIMIT ?
                    """, .text(after), .integer(Int64(Self.batchSize)))
            }
            images += rows.compactMap(Self.image)
            guard rows.count == Self.batchSize, let last = rows.last?["id"].text else { return images }
            after = last
        }
    }

    static let batchSize = 2000

    private static func image(_ row: DatabaseRow) -> CataloguedImage? {
        guard let id = row["id"].text, let fileName = row["file_name"].text, let version = row["version"].text,
              let size = row["size"].integer, let modified = row["modified_ns"].integer,
              let width = row["width"].integer, let height = row["height"].integer else { return nil }
        let built = row["tile_size"].integer.flatMap { tileSize in
            row["overlap"].integer.map { (tileSize: Int(tileSize), overlap: Int($0)) }
        }
        return CataloguedImage(id: id, fileName: fileName, size: Int(size), modifiedNanoseconds: Int(modified),
                               version: version, width: Int(width), height: Int(height), built: built,
                               alpha: row["alpha"].integer == 1, direct: row["direct"].integer == 1,
                               micronsPerPixel: Self.pair(row["mpp_x"], row["mpp_y"]),
                               associatedImages: AssociatedImageEntry.entries(from: row["associated"].text))
    }

    /// Both values of a pair of REAL columns, or nil (SQLite may give a whole number as an integer).
    private static func pair(_ x: DatabaseValue, _ y: DatabaseValue) -> (x: Double, y: Double)? {
        func number(_ value: DatabaseValue) -> Double? {
            switch value {
            case .real(let number): return number
            case .integer(let number): return Double(number)
            default: return nil
            }
        }
        guard let x = number(x), let y = number(y) else { return nil }
        return (x, y)
    }

    public func save(_ images: [CataloguedImage], removing removed: [String]) throws {
        guard !images.isEmpty || !removed.isEmpty else { return }
        try database.writing { transaction in
            for id in removed {
                try transaction.execute("DELETE FROM library_images WHERE id = ?", .text(id))
            }
            for image in images {
                try transaction.execute("""
                    INSERT INTO library_images (id, file_name, size, modified_ns, version, width, height, tile_size, overlap, alpha, direct,
                                                mpp_x, mpp_y, associated)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET file_name = excluded.file_name, size = excluded.size,
                        modified_ns = excluded.modified_ns, version = excluded.version, width = excluded.width,
                        height = excluded.height, tile_size = excluded.tile_size, overlap = excluded.overlap,
                        alpha = excluded.alpha, direct = excluded.direct, mpp_x = excluded.mpp_x, mpp_y = excluded.mpp_y,
                        associated = excluded.associated
                    """, .text(image.id), .text(image.fileName), .integer(Int64(image.size)),
                    .integer(Int64(image.modifiedNanoseconds)), .text(image.version), .integer(Int64(image.width)),
                    .integer(Int64(image.height)), image.built.map { .integer(Int64($0.tileSize)) } ?? .null,
                    image.built.map { .integer(Int64($0.overlap)) } ?? .null, image.alpha ? .integer(1) : .null,
                    image.direct ? .integer(1) : .null,
                    image.micronsPerPixel.map { .real($0.x) } ?? .null, image.micronsPerPixel.map { .real($0.y) } ?? .null,
                    AssociatedImageEntry.text(of: image.associatedImages).map { .text($0) } ?? .null)
            }
        }
    }
}
