import Foundation

/// The title and caption a sidecar gives one image file, and who may see it; nil where it says nothing.
public struct Caption: Hashable, Sendable {
    public var title: String?
    public var caption: String?
    /// `"access": "private"` or `"public"`: the file's own rule, which wins over `--private-images`.
    public var access: ImageAccess?

    /// Blank strings count as none, so `"title": ""` falls back to the derived title.
    public init(title: String? = nil, caption: String? = nil, access: ImageAccess? = nil) {
        self.title = Self.nonBlank(title)
        self.caption = Self.nonBlank(caption)
        self.access = access
    }

    private static func nonBlank(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}

