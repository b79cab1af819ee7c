import Foundation

/// Where each viewer's rating of each image and each image's first-seen ("added") date are kept.
///
/// SQLite on one machine (`SQLiteRatingStore`); a shared database such as PostgreSQL can implement
/// the same calls for many replicas. Calls are synchronous (they run on server threads that
/// cannot await) and throw `RatingError` for refused input and the store's own error otherwise.
/// A call that returns has made its change durable.
public protocol RatingStore: Sendable {
    /// Each of `ids` that anyone rated, as `viewer` sees it (their own rating, if any, and every
    /// viewer's average and count); ids nobody rated are absent. `viewer` nil: no own ratings.
    func summaries(for ids: [String], viewer: ViewerID?) throws -> [String: RatingSummary]

    /// Sets `viewer`'s rating of the image (`Rating.range`, else `RatingError.outOfRange`), replacing
    /// their earlier one, and returns the image's summary as it stands after the write (in the same
    /// transaction). An id never seen before is recorded as added now.
    @discardableResult
    func setRating(_ rating: Int, for id: String, by viewer: ViewerID) throws -> RatingSummary

    /// Removes `viewer`'s rating of the image; nothing happens when they had none.
    func removeRating(for id: String, by viewer: ViewerID) throws

    /// Records `ids` as added at `date` unless already known; returns the added date of every one of
    /// `ids` (the first time each was seen, which later calls never move).
    @discardableResult
    func recordSeen(_ ids: [String], at date: Date) throws -> [String: Date]

    /// The added dates of those of `ids` that were ever seen.
    func addedDates(for ids: [String]) throws -> [String: Date]

    /// Deletes the image's ratings (every viewer's) and added date (for an image deleted on purpose, not one
    /// that merely disappeared from the folder, whose rating should come back with it). The id
    /// itself stays bound to its file name in `FileIdentities`, so it is never given to another file.
    func forget(_ id: String) throws
}

extension RatingStore {
    /// Records `ids` as seen now.
    @discardableResult
    public func recordSeen(_ ids: [String]) throws -> [String: Date] {
        try recordSeen(ids, at: Date())
    }
}

/// The one anonymous rating an image had before ratings were per viewer (`ViewerID.legacy`): what
/// callers that know no viewer (the catalog's own tests, tools) read and write.
extension RatingStore {
    /// The legacy viewer's rating of the image, nil when there is none.
    public func rating(for id: String) throws -> Int? {
        try summaries(for: [id], viewer: .legacy)[id]?.own
    }

    /// The legacy viewer's ratings of those of `ids` they rated.
    public func ratings(for ids: [String]) throws -> [String: Int] {
        try summaries(for: ids, viewer: .legacy).compactMapValues(\.own)
    }

    /// Sets the legacy viewer's rating of the image.
    public func setRating(_ rating: Int, for id: String) throws {
        try setRating(rating, for: id, by: .legacy)
    }

    /// Removes the legacy viewer's rating of the image.
    public func removeRating(for id: String) throws {
        try removeRating(for: id, by: .legacy)
    }
}
