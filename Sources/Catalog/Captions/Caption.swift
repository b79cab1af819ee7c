import Foundation

/// The title and caption a sidecar gives one image file; nil where it gives none.
public struct Caption: Hashable, Sendable {
    public var title: String?
    public var caption: String?

    /// Blank strings count as none, so `"title": ""` falls back to the derived title.
    public init(title: String? = nil, caption: String? = nil) {
        self.title = Self.nonBlank(title)
        self.caption = Self.nonBlank(caption)
    }

    private static func nonBlank(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}

