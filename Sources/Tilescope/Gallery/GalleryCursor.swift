import Catalog
import Foundation

/// Where the next page of `GET /api/images?limit=N` starts: the order and the keys of the last
/// image of the page before, as an opaque URL-safe token (base64url of a small JSON object).
///
/// Keys, not a position: a page starts after the image the client last saw, wherever that image
/// now is, so images added or removed meanwhile never make it skip or repeat another one. The
/// image itself may be gone: its keys still say where it was.
struct GalleryCursor: Codable, Equatable {
    var sort: String
    var id: String
    var name: String
    /// The average rating and its count (`sort=rating`); an older cursor's `rating` field is ignored.
    var average: Double?
    var count: Int?
    /// The added date as `Date.timeIntervalSinceReferenceDate` (a double survives JSON exactly).
    var added: Double?

    /// Longer tokens are refused before decoding (a real one is a few hundred characters).
    static let maxLength = 4096

    init(sort: GallerySort, after keys: GallerySort.Keys) {
        self.sort = sort.rawValue
        id = keys.id
        name = keys.name
        average = keys.average
        count = keys.ratingCount
        added = keys.added?.timeIntervalSinceReferenceDate
    }

    var keys: GallerySort.Keys {
        GallerySort.Keys(id: id, name: name, average: average, ratingCount: count ?? 0, added: added.map(Date.init(timeIntervalSinceReferenceDate:)))
    }

    var token: String {
        let json = (try? JSONEncoder.sorted.encode(self)) ?? Data()
        return json.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The cursor a token names, checked against the order asked for; `APIError.badRequest` otherwise.
    init(token: String, sort: GallerySort) throws {
        guard token.utf8.count <= Self.maxLength else {
            throw APIError.badRequest("cursor is too long: pass the 'next' value of the previous page unchanged")
        }
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let cursor = try? JSONDecoder().decode(Self.self, from: data),
              !cursor.id.isEmpty, cursor.average.map { (Double(Rating.range.lowerBound)...Double(Rating.range.upperBound)).contains($0) } ?? true,
              (cursor.count ?? 0) >= 0, cursor.added?.isFinite ?? true else {
            throw APIError.badRequest("cursor '\(token.prefix(40))' is not one this server gave: pass the 'next' value of the previous page unchanged")
        }
        guard cursor.sort == sort.rawValue else {
            throw APIError.badRequest("cursor was made for sort=\(cursor.sort.prefix(40)), not sort=\(sort.rawValue): keep the sort while paging")
        }
        self = cursor
    }
}

private extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
