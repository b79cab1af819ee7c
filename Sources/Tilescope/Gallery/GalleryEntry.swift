import Catalog
import Foundation

/// One image as the gallery shows it to one viewer: its record with its caption, ratings and added date.
public struct GalleryEntry: Sendable {
    public var record: ImageRecord
    public var title: String
    public var caption: String?
    /// The viewer's own rating and every viewer's average and count.
    public var rating: RatingSummary
    /// When the catalog first saw the image; nil if not looked up (only the `added` order needs it).
    public var added: Date?

    public var json: ImageJSON {
        ImageJSON(record, title: title, caption: caption, rating: rating)
    }
}
