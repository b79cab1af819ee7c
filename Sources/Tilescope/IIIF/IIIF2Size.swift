import ScrollGeometry

/// The size parameter of IIIF Image API 2.1: `full`, `max`, `w,`, `,h`, `pct:n`, `w,h`, `!w,h`.
///
/// 2.1 has no `^`: a size above the region's is allowed as it is (info.json declares
/// `sizeAboveFull`). Every form but `full` is a 3.0 size with upscaling allowed, resolved by
/// `IIIFSize.resolve`, so the same overflow and `maxArea` checks guard both versions.
struct IIIF2Size: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// The region at its own size, unscaled (and refused when that exceeds `maxArea`).
        case full
        case scaled(IIIFSize)
    }

    var kind: Kind

    static func parse(_ text: String) throws -> IIIF2Size {
        if text == "full" { return IIIF2Size(kind: .full) }
        guard !text.hasPrefix("^") else {
            throw IIIFError.size(text, "uses ^, which IIIF 2.1 does not have: sizes above the region's need no prefix")
        }
        do {
            var size = try IIIFSize.parse(text)
            size.upscale = true
            return IIIF2Size(kind: .scaled(size))
        } catch {
            throw IIIFError.size(text, "is not full, max, w,, ,h, pct:n, w,h or !w,h")
        }
    }

    /// `maxSide` bounds `max` (`IIIFFormat.maxSideOfMax`); `full` is never scaled, so a side past
    /// what the format stores is refused with the format (`IIIFRendering`).
    func resolve(region: PixelSize, maxArea: Int, maxSide: Int? = nil) throws -> PixelSize {
        switch kind {
        case .full:
            // Both sides are within the image, so the product cannot overflow.
            guard region.width * region.height <= maxArea else {
                throw IIIFError.size("full", "gives \(region.width)x\(region.height), more than this server's "
                    + "maxArea of \(maxArea) pixels: ask for max or a smaller size")
            }
            return region
        case .scaled(let size):
            // Errors quote the size in 2.1's syntax, without the `^` that 3.0 would need for it.
            return try size.resolve(region: region, maxArea: maxArea, maxSide: maxSide, spelling: description)
        }
    }

    /// The size as 2.1 writes it: as 3.0 does, but never with `^`.
    var description: String {
        switch kind {
        case .full: return "full"
        case .scaled(var size):
            size.upscale = false
            return size.description
        }
    }

    /// 2.1's canonical size: `full` for the region's own size, `w,` when the aspect ratio is
    /// kept (to within the rounding of the derived side), `w,h` when it changes.
    static func canonical(_ output: PixelSize, region: PixelSize) -> String {
        if output == region { return "full" }
        let derivedHeight = max(1, (Double(region.height) * Double(output.width) / Double(region.width)).rounded())
        return Double(output.height) == derivedHeight ? "\(output.width)," : "\(output.width),\(output.height)"
    }
}
