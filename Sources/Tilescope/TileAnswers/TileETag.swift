import Foundation

/// The ETag of an answer bound to one version of an image's pyramid (a Deep Zoom tile, preview or descriptor;
/// a IIIF image or `info.json`), built from its parts in one place so that every kind of bytes has a tag of
/// its own and no two kinds share one. Answers bound to no image version are `DocumentETag`s, below.
///
/// The text is `"{version}-{subject}[-{encoding}]{bytes}"`: the image's source version first (a new version
/// never revalidates against an old one's bytes, and `VersionedTiles` reads the version back from it), then
/// what the bytes are of (`{level}-{column}-{row}`, `preview`, `dzi`; for IIIF a hash of the canonical path, or
/// `info`/`info2` with a hash of the base URI), the folder naming a derived encoding
/// (`DeepZoomTileFormat.folderName`, `PreviewAVIF.folderName`), and which of that route's answers the bytes
/// are: the encoding itself (nothing added), the stored JPEG kept re-encoded losslessly (`-huffman`), its
/// JPEG XL (`-jxl`), or the short-lived stand-in for an encoding not made yet (`-interim`, `-interim-jxl`).
/// These texts are what clients hold in their caches: changing one makes every cached copy revalidate.
struct TileETag: Hashable, Sendable {
    /// What the bytes are a picture (or a description) of.
    enum Subject: Hashable, Sendable {
        case tile(level: Int, column: Int, row: Int)
        case preview
        /// A slide's associated image (its label, its macro...), by name (`AssociatedImageEntry.isName`).
        case associated(name: String)
        /// A tile of a level between Deep Zoom levels `level` and `level + 1` (`BetweenLevel`).
        case between(level: Int, step: Int, column: Int, row: Int)
        /// A descriptor: the stored one (format nil), or one in a derived tile format; `namesTilesFolder` when
        /// its `Url` names the versioned tiles folder (`VersionedTiles`), which depends on the host asked.
        case descriptor(format: DeepZoomTileFormat?, namesTilesFolder: Bool)
        /// A IIIF Image API rendering of either API version (the bytes are the same), by its canonical path
        /// (`IIIFRendering.canonical`), hashed: the path has commas, which `If-None-Match` lists cannot carry.
        case iiifImage(canonical: String)
        /// A IIIF image information document of Image API `apiVersion` (2 or 3), as JSON-LD or plain JSON, by a
        /// hash of its base URI, which it contains and which depends on the host the client used.
        case iiifInfo(apiVersion: Int, base: String, jsonLD: Bool)
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
        case let .associated(name): return "\"\(version)-associated-\(name)\(suffix)\""
        case let .between(level, step, column, row): return "\"\(version)-b\(level).\(step)-\(column)-\(row)\(suffix)\""
        case let .descriptor(format, namesTilesFolder):
            let format = format.map { "-" + $0.rawValue } ?? ""
            return "\"\(version)-dzi\(format)\(namesTilesFolder ? "-url" : "")\(suffix)\""
        case let .iiifImage(canonical): return "\"\(version)-\(fnv1a(canonical.utf8))\(suffix)\""
        case let .iiifInfo(apiVersion, base, jsonLD):
            return "\"\(version)-info\(apiVersion == 2 ? "2" : "")-\(fnv1a(base.utf8))-\(jsonLD ? "ld" : "json")\(suffix)\""
        }
    }

    /// Whether the header value `etag` is the tag of an answer of `version`. By prefix, not by splitting at
    /// the first `-`: a version that is not a fingerprint is kept as any text (`SourceVersion`), dashes too.
    static func isTag(_ etag: String, ofVersion version: String) -> Bool {
        etag.hasPrefix("\"" + version + "-")
    }
}

/// The ETag of an answer bound to no image version: a document validated by a hash of its bytes, or a file
/// of the browser client by its size and modification time. Like `TileETag`'s, these texts are what clients
/// hold in their caches.
struct DocumentETag: Hashable, Sendable {
    /// What the document is; its text's prefix.
    enum Kind: String, Sendable {
        /// A Presentation API 3 document (a manifest, the gallery's, the collection): it changes with captions,
        /// ratings and the gallery, so it is hashed whole.
        case presentation = "p3-"
        /// The OpenAPI contract (`OpenAPIDocument`), fixed for the life of the binary.
        case openAPI = "openapi-"
        /// A file of the browser client (`Public/`), by its stamp: no prefix.
        case clientFile = ""
        /// The client's modules in one answer (`ModulePack`), by a hash of its bytes.
        case modulePack = "modules-"
    }

    let kind: Kind
    /// A hash of the bytes, or the file's stamp.
    let fingerprint: String

    /// A document of `kind` by a hash of `body`.
    init(_ kind: Kind, body: [UInt8]) {
        self.kind = kind
        fingerprint = fnv1a(body)
    }

    /// A client file by its stamp: `{size}-{seconds}{nanoseconds}` of its modification time.
    init(clientFileOfSize size: Int, modified: timespec) {
        kind = .clientFile
        fingerprint = "\(size)-\(modified.tv_sec)\(modified.tv_nsec)"
    }

    /// The header's value, quotes included.
    var text: String { "\"" + kind.rawValue + fingerprint + "\"" }
}

/// A short, stable fingerprint for ETags (FNV-1a, 64 bits, hex without leading zeros).
func fnv1a(_ bytes: some Sequence<UInt8>) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return String(hash, radix: 16)
}
