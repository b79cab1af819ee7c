import Foundation

/// Where each image's rating and first-seen ("added") date are kept, by image id.
///
/// SQLite on one machine (`SQLiteRatingStore`); a shared database such as PostgreSQL can implement
/// the same calls for many replicas. Calls are synchronous (they run on server threads that
/// cannot await) and throw `RatingError` for refused input and the store's own error otherwise.
/// A call that returns has made its change durable.
public protocol RatingStore: Sendable {
    /// The image's rating, nil until it is rated (or after `removeRating`).
    func rating(for id: String) throws -> Int?

    /// The ratings of those of `ids` that are rated; unrated and unknown ids are absent.
    func ratings(for ids: [String]) throws -> [String: Int]

    /// Rates the image (`Rating.range`, else `RatingError.outOfRange`), replacing any earlier rating.
    /// An id never seen before is recorded as added now.
    func setRating(_ rating: Int, for id: String) throws

    /// Makes the image unrated again; nothing happens for an unrated or unknown id.
    func removeRating(for id: String) throws

    /// Records `ids` as added at `date` unless already known; returns the added date of every one of
    /// `ids` (the first time each was seen, which later calls never move).
    @discardableResult
    func recordSeen(_ ids: [String], at date: Date) throws -> [String: Date]

    /// The added dates of those of `ids` that were ever seen.
    func addedDates(for ids: [String]) throws -> [String: Date]

    /// Deletes the image's rating and added date (for an image deleted on purpose, not one
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
