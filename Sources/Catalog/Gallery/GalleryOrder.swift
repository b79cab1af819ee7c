import Foundation

/// The gallery's images in one `GallerySort` order, sorted once so that any page is found by a
/// binary search for its cursor's keys instead of a sort per request.
///
/// A page starts after the keys of the last image of the page before (keyset paging): images
/// inserted or deleted elsewhere in the order never shift it, so no image that stays is skipped
/// or repeated across pages.
public struct GalleryOrder: Sendable {
    public let sort: GallerySort
    /// The images' keys in order.
    public let keys: [GallerySort.Keys]

    /// Sorts `keys` (each image's name key is computed once for the sort, then dropped).
    public init(sort: GallerySort, keys: [GallerySort.Keys]) {
        self.sort = sort
        self.keys = sort.sorted(keys)
    }

    public var count: Int { keys.count }

    /// The position of the first image that comes strictly after `cursor` in this order
    /// (`count` when none does). `cursor` need not be an image that still exists.
    public func index(after cursor: GallerySort.Keys) -> Int {
        let probe = GallerySort.Decorated(cursor)
        var low = 0
        var high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            if sort.areInIncreasingOrder(probe, GallerySort.Decorated(keys[middle])) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }

    /// The position of the image `id`, if it is in the order.
    public func index(of id: String) -> Int? {
        keys.firstIndex { $0.id == id }
    }
}
