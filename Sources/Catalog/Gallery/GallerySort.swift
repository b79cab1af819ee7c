import Foundation

/// The orders of the gallery (`?sort=name|rating|added`), over any records that can give their `Keys`.
///
/// - `name`: by name, ignoring case and accents, numbers compared as numbers ("Tiger 2" before "Tiger 10").
/// - `rating`: best average first, then the most ratings (an average of many beats the same of few); unrated last.
/// - `added`: newest first; images without a date last.
/// Ties fall back to the name order, then to the id, so the order is total and paging is stable.
public enum GallerySort: String, CaseIterable, Sendable {
    case name
    case rating
    case added

    public static let `default` = GallerySort.name

    /// What the orders look at in one record.
    public struct Keys: Sendable {
        public var id: String
        public var name: String
        /// Every viewer's average rating, nil when nobody rated; `ratingCount` ratings make it.
        public var average: Double?
        public var ratingCount: Int
        public var added: Date?

        public init(id: String, name: String, average: Double?, ratingCount: Int, added: Date?) {
            self.id = id
            self.name = name
            self.average = average
            self.ratingCount = ratingCount
            self.added = added
        }

        /// Keys of an image with one rating (or none): its average is that rating.
        public init(id: String, name: String, rating: Int?, added: Date?) {
            self.init(id: id, name: name, average: rating.map(Double.init), ratingCount: rating == nil ? 0 : 1, added: added)
        }
    }

    /// The sort a `sort` query value names; the default when there is none; nil for an unknown
    /// name (which the HTTP layer answers with 400 and `GallerySort.allCases` in the message).
    public init?(query: String?) {
        guard let query, !query.isEmpty else { self = .default; return }
        self.init(rawValue: query.lowercased())
    }

    /// `items` in this order. Each item's keys are computed once.
    public func sorted<Item>(_ items: [Item], keys: (Item) -> Keys) -> [Item] {
        let decorated = items.map { item in (item: item, key: Decorated(keys(item))) }
        return decorated.sorted { areInIncreasingOrder($0.key, $1.key) }.map(\.item)
    }

    /// `keys` sorted in this order.
    public func sorted(_ keys: [Keys]) -> [Keys] {
        sorted(keys) { $0 }
    }

    // MARK: - Internals

    struct Decorated {
        let keys: Keys
        let name: NaturalSortKey

        init(_ keys: Keys) {
            self.keys = keys
            self.name = NaturalSortKey(keys.name)
        }
    }

    func areInIncreasingOrder(_ a: Decorated, _ b: Decorated) -> Bool {
        switch self {
        case .name:
            break
        case .rating:
            if let order = Self.descendingNilsLast(a.keys.average, b.keys.average) { return order }
            if a.keys.ratingCount != b.keys.ratingCount { return a.keys.ratingCount > b.keys.ratingCount }
        case .added:
            if let order = Self.descendingNilsLast(a.keys.added, b.keys.added) { return order }
        }
        if a.name != b.name { return a.name < b.name }
        if a.keys.name != b.keys.name { return a.keys.name < b.keys.name }
        return a.keys.id < b.keys.id
    }

    /// Whether `a` goes first when the values differ (greater first, nil last); nil when they tie.
    private static func descendingNilsLast<Value: Comparable>(_ a: Value?, _ b: Value?) -> Bool? {
        switch (a, b) {
        case (nil, nil): nil
        case (nil, _?): false
        case (_?, nil): true
        case (let x?, let y?): x == y ? nil : x > y
        }
    }
}
