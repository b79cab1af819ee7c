import Foundation
import ScrollGeometry

/// The size parameter: how large the region comes back. `^` allows upscaling.
struct IIIFSize: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case max
        case width(Int)
        case height(Int)
        case percent(Double)
        case exact(width: Int, height: Int)
        /// `!w,h`: as large as fits in w x h, keeping the region's aspect ratio.
        case confined(width: Int, height: Int)
    }

    var kind: Kind
    var upscale: Bool

    static func parse(_ text: String) throws -> IIIFSize {
        let upscale = text.hasPrefix("^")
        var body = upscale ? String(text.dropFirst()) : text
        if body == "max" { return IIIFSize(kind: .max, upscale: upscale) }
        if body == "full" { throw IIIFError.size(text, "is not a size in IIIF 3.0 (use max)") }
        if body.hasPrefix("pct:") {
            guard let percent = IIIFNumber.decimal(body.dropFirst(4)), percent > 0 else {
                throw IIIFError.size(text, "needs a percentage above 0")
            }
            return IIIFSize(kind: .percent(percent), upscale: upscale)
        }
        let confined = body.hasPrefix("!")
        if confined { body.removeFirst() }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw IIIFError.size(text, "is not max, w,, ,h, pct:n, w,h or !w,h") }
        let width = parts[0].isEmpty ? nil : IIIFNumber.integer(parts[0])
        let height = parts[1].isEmpty ? nil : IIIFNumber.integer(parts[1])
        guard (parts[0].isEmpty || width != nil), (parts[1].isEmpty || height != nil) else {
            throw IIIFError.size(text, "needs non-negative integers")
        }
        if width == 0 || height == 0 { throw IIIFError.size(text, "asks for zero pixels") }
        switch (width, height, confined) {
        case let (w?, h?, true): return IIIFSize(kind: .confined(width: w, height: h), upscale: upscale)
        case let (w?, h?, false): return IIIFSize(kind: .exact(width: w, height: h), upscale: upscale)
        case let (w?, nil, false): return IIIFSize(kind: .width(w), upscale: upscale)
        case let (nil, h?, false): return IIIFSize(kind: .height(h), upscale: upscale)
        default: throw IIIFError.size(text, "is not max, w,, ,h, pct:n, w,h or !w,h")
        }
    }

    /// Output pixels for a region of `region` pixels, or 400 when the request would
    /// upscale without `^`, collapse to nothing, or exceed `maxArea`. `max` is also kept within
    /// `maxSide` (info.json's `maxWidth` and `maxHeight`, or the requested format's own limit where it
    /// is smaller: `IIIFFormat.maxSideOfMax`); an explicit size past what the format stores is refused
    /// later, with the format named (`IIIFRendering`).
    ///
    /// Requests can name sizes far beyond any `Int` product (`^pct:999999999` of a large image,
    /// `^999999999,` of a 1-pixel region): sides are worked out in floating point and checked
    /// against the limits there, and only sizes within them become integers.
    ///
    /// `spelling` is the size as error messages quote it: `description` (3.0's syntax) unless the
    /// caller speaks another version (2.1 has no `^`: `IIIF2Size`).
    func resolve(region: PixelSize, maxArea: Int, maxSide: Int? = nil, spelling: String? = nil) throws -> PixelSize {
        let quoted = spelling ?? description
        let rw = Double(region.width), rh = Double(region.height)
        let width: Double, height: Double
        switch kind {
        case .max:
            // `^max` is read as `max`: see docs/iiif.md, "Deviations", for why.
            return Self.fit(region, maxArea: maxArea, maxSide: maxSide)
        case .width(let w):
            (width, height) = (Double(w), Self.round(rh * Double(w) / rw))
        case .height(let h):
            (width, height) = (Self.round(rw * Double(h) / rh), Double(h))
        case .percent(let percent):
            (width, height) = ((rw * percent / 100).rounded(), (rh * percent / 100).rounded())
            guard width >= 1, height >= 1 else { throw IIIFError.size(quoted, "leaves less than one pixel") }
        case let .exact(w, h):
            (width, height) = (Double(w), Double(h))
        case let .confined(w, h):
            let byWidth = Double(w) / rw, byHeight = Double(h) / rh
            (width, height) = byWidth <= byHeight
                ? (Double(w), min(Double(h), Self.round(rh * byWidth)))
                : (min(Double(w), Self.round(rw * byHeight)), Double(h))
        }
        if !upscale && (width > rw || height > rh) {
            throw IIIFError.size(quoted, "would enlarge the \(region.width)x\(region.height) region; prefix it with ^ to allow that")
        }
        // Both sides are at least 1, so an area within `maxArea` bounds each side too.
        guard width * height <= Double(maxArea) else {
            throw IIIFError.size(quoted, "gives \(IIIFNumber.canonical(width))x\(IIIFNumber.canonical(height)), "
                + "more than this server's maxArea of \(maxArea) pixels")
        }
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// What `max` gives: the region at full resolution, scaled down, keeping its aspect ratio, to
    /// fit `maxArea` and to have no side longer than `maxSide` (info.json's `maxWidth` and
    /// `maxHeight`, which are equal here). As the IIIF reference implementation works it out: the
    /// area first (rounding down), then a side past `maxSide` becomes `maxSide` and the other side
    /// is derived from the region's (rounded to the nearest pixel, at least one), so that `max` of a
    /// 100000 x 10 region within 65500 is `65500,7`, what `65500,` gives.
    /// Region sides are within the image's, so their product cannot overflow.
    static func fit(_ region: PixelSize, maxArea: Int, maxSide: Int?) -> PixelSize {
        var size = region
        let area = region.width * region.height
        if area > maxArea {
            let scale = (Double(maxArea) / Double(area)).squareRoot()
            size = PixelSize(width: max(1, Int(Double(region.width) * scale)), height: max(1, Int(Double(region.height) * scale)))
        }
        if let maxSide {
            if size.width > maxSide {
                size = PixelSize(width: maxSide, height: derived(region.height, maxSide, region.width))
            }
            if size.height > maxSide {
                size = PixelSize(width: derived(region.width, maxSide, region.height), height: maxSide)
            }
        }
        while size.width * size.height > maxArea { size = PixelSize(width: max(1, size.width - 1), height: max(1, size.height - 1)) }
        return size
    }

    /// `side * numerator / denominator` to the nearest pixel, at least one (in floating point: no overflow).
    private static func derived(_ side: Int, _ numerator: Int, _ denominator: Int) -> Int {
        max(1, Int((Double(side) * Double(numerator) / Double(denominator)).rounded()))
    }

    /// 3.0's canonical size: `max` for what `max` would give, `w,h` otherwise, with `^` when
    /// either side is larger than the region's.
    static func canonical(_ output: PixelSize, region: PixelSize, maxArea: Int, maxSide: Int?) -> String {
        let enlarged = output.width > region.width || output.height > region.height
        if !enlarged && output == fit(region, maxArea: maxArea, maxSide: maxSide) { return "max" }
        return "\(enlarged ? "^" : "")\(output.width),\(output.height)"
    }

    /// A derived side: the nearest whole pixel, at least one.
    private static func round(_ value: Double) -> Double { max(1, value.rounded()) }

    var description: String {
        let prefix = upscale ? "^" : ""
        switch kind {
        case .max: return prefix + "max"
        case .width(let w): return "\(prefix)\(w),"
        case .height(let h): return "\(prefix),\(h)"
        case .percent(let p): return "\(prefix)pct:\(IIIFNumber.canonical(p))"
        case let .exact(w, h): return "\(prefix)\(w),\(h)"
        case let .confined(w, h): return "\(prefix)!\(w),\(h)"
        }
    }
}
