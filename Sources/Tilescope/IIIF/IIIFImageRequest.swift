import ScrollGeometry

/// `{region}/{size}/{rotation}/{quality}.{format}`, parsed; every syntax error is a 400.
struct IIIFImageRequest: Equatable, Sendable {
    var region: IIIFRegion
    var size: IIIFSize
    var rotation: IIIFRotation
    var quality: IIIFQuality
    var format: IIIFFormat

    static func parse(region: String, size: String, rotation: String, qualityAndFormat: String) throws -> IIIFImageRequest {
        guard let dot = qualityAndFormat.lastIndex(of: ".") else {
            throw APIError.badRequest("'\(qualityAndFormat.prefix(60))' is not {quality}.{format}")
        }
        let qualityText = String(qualityAndFormat[..<dot])
        let formatText = String(qualityAndFormat[qualityAndFormat.index(after: dot)...])
        guard let quality = IIIFQuality(rawValue: qualityText) else { throw IIIFError.quality(qualityText) }
        guard let format = IIIFFormat.offered(formatText) else { throw IIIFError.format(formatText) }
        return IIIFImageRequest(region: try IIIFRegion.parse(region), size: try IIIFSize.parse(size),
                                rotation: try IIIFRotation.parse(rotation), quality: quality, format: format)
    }

    /// The pixels to read and the size to scale them to, for a `width` x `height` image.
    func resolve(width: Int, height: Int, maxArea: Int) throws -> IIIFRendering {
        try IIIFRendering(region: region, rotation: rotation, quality: quality, format: format,
                          width: width, height: height, maxArea: maxArea) { regionSize in
            let output = try size.resolve(region: regionSize, maxArea: maxArea, maxSide: format.maxSideOfMax)
            return (output, IIIFSize.canonical(output, region: regionSize, maxArea: maxArea, maxSide: format.maxSideOfMax))
        }
    }
}

/// A resolved image request: exactly which pixels, how large, and its canonical path.
struct IIIFRendering: Equatable, Sendable {
    var region: PixelRect
    var size: PixelSize
    var rotation: IIIFRotation
    var quality: IIIFQuality
    var format: IIIFFormat
    /// `{region}/{size}/{rotation}/{quality}.{format}` in canonical form: equal requests
    /// (`full` vs `0,0,w,h`, `pct:50` vs `w,h`) share it, so it keys the cache and the ETag.
    var canonical: String
}

extension IIIFRendering {
    /// Resolves a request of either API version against a `width` x `height` image. The versions
    /// differ only in their size syntax and its canonical spelling, which `size` supplies: it
    /// turns the region's size into the output size and its canonical text.
    init(region: IIIFRegion, rotation: IIIFRotation, quality: IIIFQuality, format: IIIFFormat,
         width: Int, height: Int, maxArea: Int,
         size: (PixelSize) throws -> (output: PixelSize, canonical: String)) throws {
        let rect = try region.resolve(width: width, height: height)
        let (output, sizePart) = try size(PixelSize(width: rect.width, height: rect.height))
        try rotation.checkArea(of: output, maxArea: maxArea)
        let turned = rotation.boundingBox(of: output)
        if let side = format.maxSide, max(turned.width, turned.height) > Double(side) {
            throw APIError.badRequest("a .\(format.rawValue) image can be at most \(side) pixels on a side, and this one "
                + "would be \(Int(turned.width))x\(Int(turned.height)): ask for max, a smaller size or another format")
        }
        let isFull = rect == PixelRect(x: 0, y: 0, width: width, height: height)
        let regionPart = isFull ? "full" : "\(rect.x),\(rect.y),\(rect.width),\(rect.height)"
        self.init(region: rect, size: output, rotation: rotation, quality: quality, format: format,
                  canonical: "\(regionPart)/\(sizePart)/\(rotation.description)/\(quality.rawValue).\(format.rawValue)")
    }
}
