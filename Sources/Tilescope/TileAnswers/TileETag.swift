/// The ETag of a Deep Zoom answer (a tile, the preview, a descriptor), built from its parts in one place so
/// that every kind of bytes has a tag of its own and no two kinds share one.
///
/// The text is `"{version}-{subject}[-{encoding}]{bytes}"`: the image's source version first (a new version
/// never revalidates against an old one's bytes, and `VersionedTiles` reads the version back from it), then
/// what the bytes are of (`{level}-{column}-{row}`, `preview`, `dzi`), the folder naming a derived encoding
/// (`DeepZoomTileFormat.folderName`, `PreviewAVIF.folderName`), and which of that route's answers the bytes
/// are: the encoding itself (nothing added), the stored JPEG kept re-encoded losslessly (`-huffman`), its
/// JPEG XL (`-jxl`), or the short-lived stand-in for an encoding not made yet (`-interim`, `-interim-jxl`).
/// These texts are what clients hold in their caches: changing one makes every cached copy revalidate.
struct TileETag: Hashable, Sendable {
    /// What the bytes are a picture (or a description) of.
    enum Subject: Hashable, Sendable {
        case tile(level: Int, column: Int, row: Int)
        case preview
        /// A descriptor: the stored one (format nil), or one in a derived tile format; `namesTilesFolder` when
        /// its `Url` names the versioned tiles folder (`VersionedTiles`), which depends on the host asked.
        case descriptor(format: DeepZoomTileFormat?, namesTilesFolder: Bool)
    }

    /// Which of a route's answers the bytes are.
    enum Bytes: String, Sendable {
        /// The stored file, or the derived encoding made for the route.
        case encoded = ""
        /// The stored JPEG re-encoded losslessly, kept because no encoding came out smaller (`KeptJPEG`).
        case keptJPEG = "-huffman"
        /// The stored JPEG's JPEG XL recompression, kept beside (`JPEGXLAnswers`).
        case keptJPEGXL = "-jxl"
        /// The stand-in while the encoding is made (`InterimFormatTiles`).
        case interimJPEG = "-interim"
        /// The stand-in's JPEG XL, for a client that accepts it.
        case interimJPEGXL = "-interim-jxl"
    }

    let version: String
    let subject: Subject
    /// The folder naming the derived encoding, nil for the stored files.
    let encoding: String?
    let bytes: Bytes

    init(version: String, _ subject: Subject, encoding: String? = nil, bytes: Bytes = .encoded) {
        self.version = version
        self.subject = subject
        self.encoding = encoding
        self.bytes = bytes
    }

    /// The same answer's other bytes: the kept JPEG of a tile, the JPEG XL of a stand-in.
    func with(_ bytes: Bytes) -> TileETag {
        TileETag(version: version, subject, encoding: encoding, bytes: bytes)
    }

    /// The header's value, quotes included. One interpolation a subject: a stored tile's tag is made on its
    /// route's every answer not given from memory, and costs what the hand-written one did.
    var text: String {
        let suffix = encoding.map { "-" + $0 + bytes.rawValue } ?? bytes.rawValue
        switch subject {
        case let .tile(level, column, row): return "\"\(version)-\(level)-\(column)-\(row)\(suffix)\""
        case .preview: return "\"\(version)-preview\(suffix)\""
        case let .descriptor(format, namesTilesFolder):
            let format = format.map { "-" + $0.rawValue } ?? ""
            return "\"\(version)-dzi\(format)\(namesTilesFolder ? "-url" : "")\(suffix)\""
        }
    }

    /// Whether the header value `etag` is the tag of an answer of `version`. By prefix, not by splitting at
    /// the first `-`: a version that is not a fingerprint is kept as any text (`SourceVersion`), dashes too.
    static func isTag(_ etag: String, ofVersion version: String) -> Bool {
        etag.hasPrefix("\"" + version + "-")
    }
}
