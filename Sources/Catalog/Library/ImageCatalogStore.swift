import Foundation

/// Where the library is remembered between runs (`CataloguedImage` per image), so a restart serves
/// at once from what the last run knew while the images folder is scanned again in the background.
///
/// `SQLImageCatalogStore`, on SQLite (one machine) or PostgreSQL (replicas).
/// The folder stays the truth: the next scan corrects anything remembered wrongly.
public protocol ImageCatalogStore: Sendable {
    /// Every remembered image.
    func all() throws -> [CataloguedImage]

    /// Remembers `images` (replacing what was kept for their ids) and forgets `removed`, in one transaction.
    func save(_ images: [CataloguedImage], removing removed: [String]) throws
}
