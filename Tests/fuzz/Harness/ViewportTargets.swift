@testable import HTTPServer
import ScrollGeometry
@testable import Tilescope

/// The viewport query, both ways it arrives: `GET ?width=...` (`{width}x{height}|{query string}`, split
/// and decoded as libmicrohttpd and `PercentDecoding` do) and `POST` JSON (`{width}x{height}|{body}`).
/// A query that parses is answered for an image of that size, and the answer is written out: every
/// tile it lists must exist in the pyramid, every number in it must be finite and printed as `description`
/// prints it. Every value the short-decimal fast path reads must be read as `Double(String)` reads it.
enum ViewportQueryTarget {
    static func run(_ bytes: [UInt8]) {
        let input = SizedInput(bytes)
        var fields: [String: String] = [:]
        for pair in input.text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = PercentDecoding.decode(parts[0], plusIsSpace: true),
                  let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "", plusIsSpace: true) else { return }
            fields[key] = value
            // The short-decimal fast path is the full parser's double or nothing.
            if let fast = ViewportFields.shortDecimal(value.utf8) {
                FuzzCheck.require(Double(value)?.bitPattern == fast.bitPattern, "shortDecimal(\(value)) = \(fast), not Double(value)")
            }
        }
        guard let query = try? ViewportQuery.parse(query: fields) else { return }
        ViewportAnswerCheck.check(query, width: input.width, height: input.height)
    }
}

enum ViewportJSONTarget {
    static func run(_ bytes: [UInt8]) {
        let input = SizedInput(bytes)
        guard let query = try? ViewportQuery.parse(json: Array(input.text.utf8)) else { return }
        ViewportAnswerCheck.check(query, width: input.width, height: input.height)
    }
}

/// What must hold of any viewport answer.
enum ViewportAnswerCheck {
    static func check(_ query: ViewportQuery, width: Int, height: Int) {
        let pyramid = Pyramid(width: width, height: height)
        let viewport = query.viewport(for: pyramid)
        let context = "\(query) on \(width)x\(height)"
        for tile in viewport.tiles + (viewport.prefetch ?? []) {
            let a = tile.address
            FuzzCheck.require(pyramid.contains(level: a.level, column: a.column, row: a.row), "tile \(a) not in the pyramid: \(context)")
        }
        for number in [viewport.zoomScale, viewport.minimumZoomScale, viewport.maximumZoomScale, viewport.contentOffset.x,
                       viewport.contentOffset.y, viewport.contentSize.width, viewport.contentSize.height, viewport.threshold] {
            FuzzCheck.require(number.isFinite, "non-finite number in the answer: \(context)")
        }
        FuzzCheck.require(viewport.zoomScale > 0, "zoomScale \(viewport.zoomScale): \(context)")
        // Every number is printed as the documented form: whole numbers below 2^53 as integers, others as
        // `description` (the short-fraction printer must never differ from it).
        let rect = viewport.visibleRect
        let frames = viewport.tiles.prefix(8).flatMap { [$0.frame.x, $0.frame.y, $0.frame.width, $0.frame.height] }
        for number in [viewport.zoomScale, viewport.contentOffset.x, viewport.contentOffset.y, viewport.contentSize.width,
                       viewport.contentSize.height, rect.x, rect.y, rect.width, rect.height] + frames {
            let whole = number.magnitude < 9_007_199_254_740_992 && number == number.rounded()
            let expected = whole ? String(Int(number)) : number.description
            FuzzCheck.require(ViewportJSON.number(number) == expected,
                              "\(number.description) printed as \(ViewportJSON.number(number)): \(context)")
        }
        let answer = ViewportResponse(imageID: "fuzz", viewport: viewport, urls: PyramidURLs(imageID: "fuzz", version: 1),
                                      listing: query.listing)
        _ = answer.jsonBuffer()  // written as the route writes it (the buffer is freed with it)
    }
}
