@testable import HTTPServer
import ScrollGeometry
@testable import Tilescope

/// IIIF image requests: `{width}x{height}|{region}/{size}/{rotation}/{quality}.{format}` (the image up to
/// 200000 x 200000), routed like `/iiif/3/{id}/...` (percent-decoding included), parsed, and resolved for
/// that image under a few `maxArea` limits. A resolved region lies inside the image; a resolved size is
/// at least 1 x 1, within `maxArea`, and larger than the region only when `^` allowed it. The canonical
/// form parses again and resolves to the same pixels.
enum IIIFTarget {
    static let maxAreas = [4096 * 4096, 1_000_000, 1, 200_000 * 200_000]

    static func run(_ bytes: [UInt8]) {
        let input = SizedInput(bytes)
        guard let segments = PercentDecoding.segments(of: "/iiif/3/fuzz/" + input.text),
              case let .iiifImage(_, region, size, rotation, qualityAndFormat)? = try? Endpoint.parse(segments),
              let request = try? IIIFImageRequest.parse(region: region, size: size, rotation: rotation,
                                                        qualityAndFormat: qualityAndFormat) else { return }
        FuzzCheck.require(request.rotation.degrees >= 0 && request.rotation.degrees <= 360, "rotation \(request.rotation)")
        _ = request.rotation.quarterTurns
        for maxArea in maxAreas {
            guard let rendering = try? request.resolve(width: input.width, height: input.height, maxArea: maxArea) else { continue }
            check(rendering, request, width: input.width, height: input.height, maxArea: maxArea)
        }
    }

    private static func check(_ rendering: IIIFRendering, _ request: IIIFImageRequest, width: Int, height: Int, maxArea: Int) {
        let r = rendering.region, s = rendering.size
        let context = "\(request) on \(width)x\(height), maxArea \(maxArea): region \(r), size \(s)"
        FuzzCheck.require(r.x >= 0 && r.y >= 0 && r.width >= 1 && r.height >= 1
                          && r.x + r.width <= width && r.y + r.height <= height, "region outside the image: \(context)")
        FuzzCheck.require(s.width >= 1 && s.height >= 1, "empty output: \(context)")
        let area = s.width.multipliedReportingOverflow(by: s.height)
        FuzzCheck.require(!area.overflow && area.partialValue <= maxArea, "output over maxArea: \(context)")
        FuzzCheck.require(request.size.upscale || (s.width <= r.width && s.height <= r.height), "upscaled without ^: \(context)")
        let parts = rendering.canonical.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        FuzzCheck.require(parts.count == 4, "canonical \(rendering.canonical) is not four parts")
        guard let again = try? IIIFImageRequest.parse(region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3]),
              let resolved = try? again.resolve(width: width, height: height, maxArea: maxArea) else {
            FuzzCheck.require(false, "canonical \(rendering.canonical) does not resolve again: \(context)")
            return
        }
        FuzzCheck.require(resolved.region == r && resolved.size == s,
                          "canonical \(rendering.canonical) resolves to \(resolved.region) \(resolved.size): \(context)")
    }
}
