import ScrollGeometry

/// `{region}/{size}/{rotation}/{quality}.{format}` of IIIF Image API 2.1, parsed and resolved to
/// the same `IIIFRendering` as 3.0 (one renderer serves both); only the size syntax and the
/// canonical form differ.
struct IIIF2ImageRequest: Equatable, Sendable {
    var region: IIIFRegion
    var size: IIIF2Size
    var rotation: IIIFRotation
    var quality: IIIFQuality
    var format: IIIFFormat

    static func parse(region: String, size: String, rotation: String, qualityAndFormat: String) throws -> IIIF2ImageRequest {
        // Region, rotation, quality and format read the same in 2.1 and 3.0; the size is parsed
        // by 2.1's rules, and 3.0's parser sees a size that 3.0 accepts.
        let shared = try IIIFImageRequest.parse(region: region, size: "max", rotation: rotation,
                                                qualityAndFormat: qualityAndFormat)
        return IIIF2ImageRequest(region: shared.region, size: try IIIF2Size.parse(size), rotation: shared.rotation,
                                 quality: shared.quality, format: shared.format)
    }

    /// The pixels to read and the size to scale them to, with 2.1's canonical path.
    func resolve(width: Int, height: Int, maxArea: Int) throws -> IIIFRendering {
        let rect = try region.resolve(width: width, height: height)
        let regionSize = PixelSize(width: rect.width, height: rect.height)
        let output = try size.resolve(region: regionSize, maxArea: maxArea)
        try rotation.checkArea(of: output, maxArea: maxArea)
        let isFull = rect == PixelRect(x: 0, y: 0, width: width, height: height)
        let regionPart = isFull ? "full" : "\(rect.x),\(rect.y),\(rect.width),\(rect.height)"
        let sizePart = IIIF2Size.canonical(output, region: regionSize)
        let canonical = "\(regionPart)/\(sizePart)/\(rotation.description)/\(quality.rawValue).\(format.rawValue)"
        return IIIFRendering(region: rect, size: output, rotation: rotation, quality: quality, format: format,
                             canonical: canonical)
    }
}
