import Imaging

/// The limits every source image obeys, uploaded or dropped into the images folder alike, checked
/// from its header before a single pixel is decoded: a few hundred bytes declaring 60000x60000
/// would otherwise become minutes of building and gigabytes of grey tiles.
public struct SourceLimits: Sendable {
    /// Most pixels (width x height) a source may declare (`--max-pixels`).
    public var maxPixels: Int
    /// Whether a folder file (by its name) that already is a pyramid, served from its own levels, is exempt from
    /// `maxPixels`: the limit bounds what a build decodes, and serving a slide directly decodes only the tiles
    /// asked for (whole-slide images are often 5 to 10 gigapixels). False for a file whose rule is to be built
    /// (`SourceServingRules`). Uploads are never exempt.
    public var pyramidsExempt: @Sendable (_ fileName: String) -> Bool

    public init(maxPixels: Int, pyramidsExempt: @escaping @Sendable (_ fileName: String) -> Bool = { _ in false }) {
        self.maxPixels = maxPixels
        self.pyramidsExempt = pyramidsExempt
    }

    /// Why a header is refused.
    public enum Breach: Error, Sendable, CustomStringConvertible {
        case empty(width: Int, height: Int)
        case tooManyPixels(width: Int, height: Int, limit: Int)

        public var description: String {
            switch self {
            case .empty(let width, let height):
                "it declares an empty image (\(width)x\(height))"
            case .tooManyPixels(let width, let height, let limit):
                "it declares \(width)x\(height) = \(width * height) pixels, more than this server's limit of \(limit) (--max-pixels, TILESCOPE_MAX_PIXELS)"
            }
        }
    }

    /// nil when the folder file at `path` with `header` is within every limit (a pyramid over `maxPixels` is,
    /// when `pyramidsExempt`: probed only then, a rare case).
    public func breach(of header: ImageHeader, folderFile path: String) -> Breach? {
        guard let breach = breach(of: header) else { return nil }
        if case .tooManyPixels = breach, pyramidsExempt(String(path.split(separator: "/").last ?? "")),
           (try? PyramidalSource.probe(path: path)) != nil { return nil }
        return breach
    }

    /// nil when the header is within every limit. libvips's sizes are 32-bit, so the product cannot overflow.
    public func breach(of header: ImageHeader) -> Breach? {
        guard header.width > 0, header.height > 0 else { return .empty(width: header.width, height: header.height) }
        guard header.pixels <= maxPixels else {
            return .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
        return nil
    }
}
