import Catalog
@testable import Tilescope

/// `PUT /api/images/{id}/rating` bodies: refused with a message, or a rating inside `Rating.range`.
enum RatingTarget {
    static func run(_ bytes: [UInt8]) {
        guard let rating = try? RatingBody.parse(bytes) else { return }
        FuzzCheck.require(Rating.range.contains(rating), "rating \(rating) accepted")
    }
}
