import Foundation

/// One image as the gallery shows it: its record with its caption, rating and added date.
public struct GalleryEntry: Sendable {
    public var record: ImageRecord
    public var title: String
    public var caption: String?
    public var rating: Int?
    /// When the catalog first saw the image; nil if not looked up (only the `added` order needs it).
    public var added: Date?

    public var json: ImageJSON {
        ImageJSON(record, title: title, caption: caption, rating: rating)
    }
}
