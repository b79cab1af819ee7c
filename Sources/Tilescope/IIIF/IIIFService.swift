import Foundation
import HTTPServer
import Imaging

/// IIIF settings and state shared by all requests: the public base URL, the limits
/// advertised in info.json, and the cache of rendered derivatives.
public final class IIIFService: Sendable {
    /// `https://example.org/tiles` (no trailing slash), or nil to build ids from each
    /// request's `X-Forwarded-Proto`/`X-Forwarded-Host`/`Host`.
    let publicURL: String?
    /// Largest output in pixels; info.json's `maxArea`.
    let maxArea: Int
    let jpegQuality: Int
    /// What a transparent image is laid over in formats without alpha (JPEG): the pyramid's own.
    let background: Background
    let cache: DerivativeCache
    /// Coinciding tiles on their way to their files.
    let tileWrites = IIIFTileWrites()
    /// Lossless copies of lossless sources, for exact regions.
    let lossless = LosslessCopies()
    /// Presentation API: `rights` (a licence URI) and the `requiredStatement` attribution text, if configured.
    let rights: String?
    let attribution: String?
    /// Manifests per page of the Presentation collection.
    let collectionPageSize: Int

    public static let prefix = "/iiif/3/"

    public init(publicURL: String? = nil, cacheBytes: Int = 256 << 20, maxArea: Int = 4096 * 4096, jpegQuality: Int = 85,
                background: Background = .white, rights: String? = nil, attribution: String? = nil, collectionPageSize: Int = 100) {
        self.rights = rights.flatMap { $0.isEmpty ? nil : $0 }
        self.attribution = attribution.flatMap { $0.isEmpty ? nil : $0 }
        self.collectionPageSize = max(1, collectionPageSize)
        var url = publicURL ?? ""
        while url.hasSuffix("/") { url.removeLast() }
        self.publicURL = url.isEmpty ? nil : url
        self.maxArea = maxArea
        self.jpegQuality = jpegQuality
        self.background = background
        cache = DerivativeCache(capacityBytes: cacheBytes)
    }

    /// The image's base URI as the client reached it: `{scheme}://{host}/iiif/3/{id}`.
    func baseURI(id: String, request: Request) -> String {
        url(Self.prefix + Self.encode(id), request: request)
    }

    /// An absolute URL of this server for `path` (which starts with `/`), as the client reached it:
    /// every IIIF id (Image API 2.1 and 3.0, Presentation) is built here.
    ///
    /// Under a signed URL (`request.mountPath`, `/signed/{token}`) every URL keeps the prefix: a descriptor or
    /// info.json reached through a signed base hands out signed bases, so a viewer's tile requests carry it.
    func url(_ path: String, request: Request) -> String {
        let path = request.mountPath + path
        if let publicURL { return publicURL + path }
        let scheme = Self.firstValue(request.header("x-forwarded-proto")).flatMap { $0 == "https" || $0 == "http" ? $0 : nil }
        let host = [Self.firstValue(request.header("x-forwarded-host")), request.header("host")]
            .compactMap { $0 }.first(where: Self.isHost)
        return "\(scheme ?? "http")://\(host ?? "localhost")\(path)"
    }

    /// Proxies append to these headers: the client's value is the first one.
    private static func firstValue(_ header: String?) -> String? {
        guard let first = header?.split(separator: ",").first else { return nil }
        let value = first.trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }

    /// A host name or address with an optional port, and nothing that could break out of
    /// a URL or a header (quotes, slashes, spaces, control characters).
    private static func isHost(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x2D || byte == 0x3A || byte == 0x5B || byte == 0x5D || byte == 0x5F
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func encode(_ id: String) -> String {
        var out = ""
        for byte in id.utf8 {
            let unreserved = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            out += unreserved ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return out
    }
}
