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
        try IIIFRendering(region: region, rotation: rotation, quality: quality, format: format,
                          width: width, height: height, maxArea: maxArea) { regionSize in
            let output = try size.resolve(region: regionSize, maxArea: maxArea, maxSide: format.maxSideOfMax)
            return (output, IIIF2Size.canonical(output, region: regionSize))
        }
    }
}
