import Catalog
import Foundation

/// The library's images joined with their captions (sidecar) and ratings (catalog), in a
/// gallery order. The image list and the paging endpoint both take their order from here.
public final class Gallery: Sendable {
    public let library: ImageLibrary
    public let ratings: any RatingStore
    public let captions: CaptionsCache

    public init(library: ImageLibrary, ratings: any RatingStore, captions: CaptionsCache) {
        self.library = library
        self.ratings = ratings
        self.captions = captions
    }

    /// Every image in `sort` order, with one batch lookup of ratings (and of added dates for `.added`).
    /// The order is total (ties broken by title, then id), so pages cut from it are stable.
    public func entries(sortedBy sort: GallerySort) throws -> [GalleryEntry] {
        let records = library.all
        let ids = records.map(\.id)
        let ratings = try self.ratings.ratings(for: ids)
        let added = sort == .added ? try self.ratings.addedDates(for: ids) : [:]
        let captions = self.captions.current
        let entries = records.map { record in
            GalleryEntry(record: record, title: captions.title(forFile: record.fileName),
                         caption: captions.caption(forFile: record.fileName),
                         rating: ratings[record.id], added: added[record.id])
        }
        return sort.sorted(entries) { entry in
            GallerySort.Keys(id: entry.record.id, name: entry.title, rating: entry.rating, added: entry.added)
        }
    }

    /// One image with its caption and rating.
    public func entry(_ record: ImageRecord) throws -> GalleryEntry {
        entry(record, rating: try ratings.rating(for: record.id))
    }

    /// One image with its caption and a rating known already (the one just stored).
    public func entry(_ record: ImageRecord, rating: Int?) -> GalleryEntry {
        let captions = self.captions.current
        return GalleryEntry(record: record, title: captions.title(forFile: record.fileName),
                            caption: captions.caption(forFile: record.fileName), rating: rating, added: nil)
    }
}
