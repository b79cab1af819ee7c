/// The gallery's endless carousel: page N of `count`, with the previous and next pages wrapping around.
///
/// Only three pages are ever needed at once. `count` 0 has no pages: `init` returns `nil` and the caller
/// answers 404.
public struct PagingRing: Hashable, Sendable {
    public let count: Int
    /// `N` modulo `count`, in `0 ..< count` even for negative `N`.
    public let page: Int
    public let previous: Int
    public let next: Int

    public init?(page requested: Int, count: Int) {
        guard count > 0 else { return nil }
        let page = Self.wrap(requested, count)
        self.count = count
        self.page = page
        self.previous = Self.wrap(page - 1, count)
        self.next = Self.wrap(page + 1, count)
    }

    public var current: Int { page }

    /// Euclidean remainder: never negative. `page` is already in range here, so `page ± 1` cannot overflow.
    static func wrap(_ value: Int, _ count: Int) -> Int {
        let remainder = value % count
        return remainder < 0 ? remainder + count : remainder
    }
}
