import Catalog
import Foundation

/// The library's images joined with their captions (sidecar) and ratings (catalog: a viewer's own, and
/// every viewer's average and count), in a gallery order. The image list and the paging endpoint both take their order from here.
///
/// The name order depends only on which files exist and on the captions, so it is sorted once
/// per change of either and kept: a page of a 100,000-image gallery is then a binary search and
/// a rating lookup for that page's images only. The rating and added orders read every image's
/// average or date from the catalog per request and are never cached: a rating written through any
/// replica is in the next order made by every replica.
public final class Gallery: @unchecked Sendable { // @unchecked: `nameOrder` is behind `lock`.
    public let library: ImageLibrary
    public let ratings: any RatingStore
    public let captions: CaptionsCache
    /// Which images are private (`--private-images`, with the sidecar's own rules): the lists leave them out.
    public let privateImages: PrivateImages
    private let lock = NSLock()
    /// The name order and the library and captions generations it was made from.
    private var nameOrder: (library: Int, captions: Int, order: GalleryOrder)?

    public init(library: ImageLibrary, ratings: any RatingStore, captions: CaptionsCache, privateImages: PrivateImages = .none) {
        self.privateImages = privateImages
        self.library = library
        self.ratings = ratings
        self.captions = captions
    }

    /// Every image in `sort` order, with one batch lookup of ratings (and of added dates for `.added`).
    /// The order is total (ties broken by title, then id), so pages cut from it are stable.
    public func entries(sortedBy sort: GallerySort, viewer: ViewerID?) throws -> [GalleryEntry] {
        try entries(try order(sortedBy: sort).keys[...], viewer: viewer)
    }

    /// The images in `sort` order, as keys (id, title, average rating and count, added date): the same for
    /// every viewer (the average, never a viewer's own rating, orders by rating).
    public func order(sortedBy sort: GallerySort) throws -> GalleryOrder {
        guard sort == .name else { return try freshOrder(sort) }
        let stamp = (library: library.membershipGeneration, captions: captions.generation)
        if let cached = lock.withLock({ nameOrder }), cached.library == stamp.library, cached.captions == stamp.captions {
            return cached.order
        }
        let order = try freshOrder(.name)
        lock.withLock { nameOrder = (stamp.library, stamp.captions, order) }
        // The sort's copies of every record and key are freed by now: in a large gallery their pages go
        // back (once per change of the folder or the captions).
        if order.count >= Self.largeGallery { FreedMemory.returnToSystem() }
        return order
    }

    /// The entries of `keys` (a slice of an order), with one rating lookup for them as `viewer` sees them;
    /// an image removed since the order was made is left out.
    public func entries(_ keys: ArraySlice<GallerySort.Keys>, viewer: ViewerID?) throws -> [GalleryEntry] {
        let records = keys.compactMap { library.record($0.id) }
        let ratings = try self.ratings.summaries(for: records.map(\.id), viewer: viewer)
        let captions = self.captions.current
        let added = Dictionary(keys.map { ($0.id, $0.added) }, uniquingKeysWith: { a, _ in a })
        return records.map { record in
            GalleryEntry(record: record, title: captions.title(forFile: record.fileName),
                         caption: captions.caption(forFile: record.fileName),
                         rating: ratings[record.id] ?? .none, added: added[record.id] ?? nil)
        }
    }

    /// One image with its caption and ratings as `viewer` sees them.
    public func entry(_ record: ImageRecord, viewer: ViewerID?) throws -> GalleryEntry {
        entry(record, rating: try ratings.summaries(for: [record.id], viewer: viewer)[record.id] ?? .none)
    }

    /// One image with its caption and ratings known already (the summary a write returned).
    public func entry(_ record: ImageRecord, rating: RatingSummary) -> GalleryEntry {
        let captions = self.captions.current
        return GalleryEntry(record: record, title: captions.title(forFile: record.fileName),
                            caption: captions.caption(forFile: record.fileName), rating: rating, added: nil)
    }

    // MARK: - Internals

    /// From this many images on, the temporaries of a sort are worth handing back to the system.
    static let largeGallery = 10_000

    private func freshOrder(_ sort: GallerySort) throws -> GalleryOrder {
        // Names only, not a copy of every record: 100,000 records are 17 MB. Private images are never listed
        // (docs/access.md): every list, page, count and carousel ring is cut from this order.
        let captions = self.captions.current
        let files = library.map { (id: $0.id, fileName: $0.fileName) }
            .filter { !privateImages.isPrivate(fileName: $0.fileName, captions: captions) }
        let ids = files.map(\.id)
        let ratings = sort == .rating ? try self.ratings.summaries(for: ids, viewer: nil) : [:]
        let added = sort == .added ? try self.ratings.addedDates(for: ids) : [:]
        return GalleryOrder(sort: sort, keys: files.map { file in
            GallerySort.Keys(id: file.id, name: captions.title(forFile: file.fileName),
                             average: ratings[file.id]?.average, ratingCount: ratings[file.id]?.count ?? 0,
                             added: added[file.id])
        })
    }
}
