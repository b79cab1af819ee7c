/// What a rendering costs in the fair queue's units (`FairQueue`), known before any pixel is read: pixels
/// decoded plus pixels encoded. The region is read from the pyramid level at least as sharp as the output, which
/// holds between 1 and 4 times the output's pixels (at most the region's own, when the output is as large or
/// larger: an upscale decodes the region and encodes the output); a rotation by other than a right angle encodes
/// its bounding box. Every term is bounded before it gets here: the output by `maxArea`, the region by the image.
extension IIIFRendering {
    var estimatedPixels: Int {
        let output = size.width * size.height
        let decoded = min(region.width * region.height, 4 * output)
        let turned = rotation.boundingBox(of: size)
        return decoded + Int(min(turned.width * turned.height, Double(Int32.max)))
    }
}
