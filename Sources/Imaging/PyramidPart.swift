import ScrollGeometry

/// A finished piece of a progressive build, complete on disk and ready to be published whole.
///
/// A build yields one `.base` first (the descriptor, the preview and every level up to the
/// preview level, in a folder laid out like a published pyramid), then one `.level` per finer
/// level, coarse to fine. Nothing in a part's folder is written after the part is handed over.
public struct PyramidPart: Sendable {
    public enum Kind: Sendable, Equatable {
        /// `image.dzi`, `preview.jpeg` (and `preview.png`) and `image_files/0...n/`.
        case base
        /// The tile folder of one level (`{col}_{row}.jpeg` files).
        case level
    }

    public let kind: Kind
    public let folder: String
    /// The levels whose tiles this part completes.
    public let levels: ClosedRange<Int>
    /// The whole pyramid's geometry, known from the header before any pixel is decoded.
    public let pyramid: Pyramid
    /// Whether the source is transparent: every tile then has a PNG beside its JPEG (`{col}_{row}.png`,
    /// alpha kept), and the base a `preview.png` beside its `preview.jpeg`.
    public let alpha: Bool

    public init(kind: Kind, folder: String, levels: ClosedRange<Int>, pyramid: Pyramid, alpha: Bool = false) {
        self.kind = kind
        self.folder = folder
        self.levels = levels
        self.pyramid = pyramid
        self.alpha = alpha
    }
}
