import ScrollGeometry

/// The region parameter: which part of the full image to return.
enum IIIFRegion: Equatable, Sendable {
    case full
    case square
    case pixels(x: Int, y: Int, width: Int, height: Int)
    case percent(x: Double, y: Double, width: Double, height: Double)

    static func parse(_ text: String) throws -> IIIFRegion {
        switch text {
        case "full": return .full
        case "square": return .square
        default: break
        }
        let isPercent = text.hasPrefix("pct:")
        let values = (isPercent ? text.dropFirst(4) : Substring(text)).split(separator: ",", omittingEmptySubsequences: false)
        guard values.count == 4 else { throw IIIFError.region(text, "is not full, square, x,y,w,h or pct:x,y,w,h") }
        if isPercent {
            let numbers = values.compactMap { IIIFNumber.decimal($0) }
            guard numbers.count == 4 else { throw IIIFError.region(text, "needs four non-negative decimal numbers") }
            guard numbers[2] > 0, numbers[3] > 0 else { throw IIIFError.region(text, "has a zero width or height") }
            return .percent(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }
        let numbers = values.compactMap { IIIFNumber.integer($0) }
        guard numbers.count == 4 else { throw IIIFError.region(text, "needs four non-negative integers") }
        guard numbers[2] > 0, numbers[3] > 0 else { throw IIIFError.region(text, "has a zero width or height") }
        return .pixels(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
    }

    /// The requested pixels of a `width` x `height` image, clipped to it. A region that
    /// starts outside the image, or leaves nothing once clipped, is an error (400).
    func resolve(width: Int, height: Int) throws -> PixelRect {
        let x: Int, y: Int, w: Int, h: Int
        switch self {
        case .full:
            return PixelRect(x: 0, y: 0, width: width, height: height)
        case .square:
            let side = min(width, height)
            return PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
        case let .pixels(px, py, pw, ph):
            (x, y, w, h) = (px, py, pw, ph)
        case let .percent(px, py, pw, ph):
            // Edges rounded to the nearest pixel, so adjacent percent regions tile exactly.
            let left = Int((px * Double(width) / 100).rounded())
            let top = Int((py * Double(height) / 100).rounded())
            let right = Int(((px + pw) * Double(width) / 100).rounded())
            let bottom = Int(((py + ph) * Double(height) / 100).rounded())
            (x, y, w, h) = (left, top, right - left, bottom - top)
        }
        guard x < width, y < height else {
            throw IIIFError.region(description, "starts outside the \(width)x\(height) image")
        }
        let clipped = PixelRect(x: x, y: y, width: min(w, width - x), height: min(h, height - y))
        guard clipped.width > 0, clipped.height > 0 else {
            throw IIIFError.region(description, "is less than one pixel of the \(width)x\(height) image")
        }
        return clipped
    }

    var description: String {
        switch self {
        case .full: return "full"
        case .square: return "square"
        case let .pixels(x, y, w, h): return "\(x),\(y),\(w),\(h)"
        case let .percent(x, y, w, h):
            return "pct:" + [x, y, w, h].map(IIIFNumber.canonical).joined(separator: ",")
        }
    }
}
