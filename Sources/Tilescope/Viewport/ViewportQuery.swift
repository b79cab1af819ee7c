import Foundation
import HTTPServer  // QueryArguments
import ScrollGeometry

/// A checked viewport request (`GET ?...` or `POST` JSON): the client's scroll view, an optional zoom, prefetch,
/// and how the answer lists its tiles (with their frames, their URLs).
///
/// Every check that does not need the image happens here, so that `Viewport` only ever sees valid input.
/// Out-of-range `zoomScale` and offsets are not errors: the geometry clamps them (rules 3 and 4).
public struct ViewportQuery: Hashable, Sendable {
    public var scrollView: ScrollView
    public var zoom: Zoom?
    public var prefetch: Bool
    /// `tileURLs=1`: every tile carries its `url`, as answers did before the `tileURL` template. Off by default:
    /// the URLs were about a third of the answer's bytes, all spelt from one template (docs/benchmarks.md).
    public var tileURLs: Bool
    /// `tileFrames=1`: every tile is an object with its frame, as answers were before the `frames` grid. Off by
    /// default: the grid listing is a fifth of the bytes (docs/viewport-api.md).
    public var tileFrames: Bool

    /// Largest accepted `width` and `height`, in points.
    public static let maxViewportSide = 16384.0
    /// Smallest accepted `width` and `height`: a thousandth of a point. Any positive side used to be
    /// accepted, and a subnormal one (`5e-324`) made the aspect-fit zoom scale 0 and the answer's
    /// `visibleRect` NaN (written as null). From here, aspect fit stays far above `minZoomScaleLimit`.
    public static let minViewportSide = 0.001
    /// Accepted screen scales (device pixels per point).
    public static let scaleRange = 1.0...4.0
    /// Largest accepted `minZoomScale`/`maxZoomScale`: keeps every coordinate of the answer finite.
    public static let maxZoomScaleLimit = 1e6
    /// Smallest accepted `minZoomScale`/`maxZoomScale`: the viewport divided by it stays finite
    /// (`minZoomScale=5e-324` made the visible rectangle infinite).
    public static let minZoomScaleLimit = 1e-300

    public init(scrollView: ScrollView, zoom: Zoom? = nil, prefetch: Bool = false, tileURLs: Bool = false,
                tileFrames: Bool = false) {
        self.scrollView = scrollView
        self.zoom = zoom
        self.prefetch = prefetch
        self.tileURLs = tileURLs
        self.tileFrames = tileFrames
    }

    /// How the answer lists its tiles: `tileURLs` implies a frame per tile.
    public var listing: ViewportResponse.TileListing { .init(tileURLs: tileURLs, tileFrames: tileFrames) }

    /// From a query string already split into fields (`width=1024&height=768&insets=0,0,0,0`).
    public static func parse(query: QueryArguments) throws(ViewportQueryError) -> ViewportQuery {
        try parse(ViewportFields(query: query))
    }

    /// The same from a dictionary of the fields.
    public static func parse(query: [String: String]) throws(ViewportQueryError) -> ViewportQuery {
        try parse(query: QueryArguments(query))
    }

    /// From a JSON object body with the same fields. Numbers are JSON numbers; `insets`, `zoomRect` and `tap`
    /// may be the comma string, an array or an object; `prefetch`, `tileURLs` and `tileFrames` may be a boolean or 0/1;
    /// `null` is absent. A field (or a key of an `insets`, `zoomRect` or `tap` object) given twice is refused, as
    /// in a query string; names the viewport does not read are ignored, repeated or not.
    public static func parse(json body: [UInt8]) throws(ViewportQueryError) -> ViewportQuery {
        let value: StrictJSON.Value
        do throws(StrictJSON.Failure) {
            value = try StrictJSON.parse(body)
        } catch {
            throw ViewportQueryError(field: "body", message: "body is \(error.description)")
        }
        guard case .object(let members) = value else {
            throw ViewportQueryError(field: "body", message: "body must be a JSON object of viewport fields")
        }
        if let field = StrictJSON.repeatedName(in: members, among: ViewportFields.names) { throw .givenTwice(field) }
        var fields: [String: ViewportFieldValue] = [:]
        for member in members where ViewportFields.names.contains(member.name) {
            if case .object(let keys) = member.value, let key = StrictJSON.repeatedName(in: keys) {
                throw .givenTwice("\(member.name).\(key)")
            }
            fields[member.name] = ViewportFieldValue(member.value)
        }
        return try parse(ViewportFields(fields))
    }

    public static func parse(json body: Data) throws(ViewportQueryError) -> ViewportQuery {
        try parse(json: [UInt8](body))
    }

    /// Everything the image decides: rules 1-10 for this request.
    public func viewport(for pyramid: Pyramid) -> Viewport {
        Viewport(pyramid: pyramid, scrollView: scrollView, zoom: zoom, prefetch: prefetch)
    }

    static func parse(_ fields: ViewportFields) throws(ViewportQueryError) -> ViewportQuery {
        if let field = fields.repeatedField() { throw .givenTwice(field) }
        let width = try side("width", fields)
        let height = try side("height", fields)
        let scale = try fields.number("scale", in: scaleRange, "from 1 to 4") ?? 1
        let zoomScale = try fields.number("zoomScale")
        if let zoomScale, zoomScale <= 0 { throw .outOfRange("zoomScale", zoomScale, "> 0") }
        let offset = Point(x: try fields.number("offsetX") ?? 0, y: try fields.number("offsetY") ?? 0)
        let insets = try self.insets(fields, width: width, height: height)
        let (minimum, maximum) = try zoomLimits(fields)
        let view = ScrollView(boundsSize: Size(width: width, height: height), scale: scale, zoomScale: zoomScale,
                              contentOffset: offset, contentInset: insets,
                              minimumZoomScale: minimum, maximumZoomScale: maximum)
        return ViewportQuery(scrollView: view, zoom: try zoom(fields), prefetch: try fields.flag("prefetch") ?? false,
                             tileURLs: try fields.flag("tileURLs") ?? false,
                             tileFrames: try fields.flag("tileFrames") ?? false)
    }

    static func side(_ field: String, _ fields: ViewportFields) throws(ViewportQueryError) -> Double {
        guard let value = try fields.number(field, in: minViewportSide...maxViewportSide,
                                            ">= \(minViewportSide) and <= \(Int(maxViewportSide))") else {
            throw .missing(field)
        }
        return value
    }

    /// `top,left,bottom,right`, each >= 0, leaving an available area (rule 1) wider and taller than 0.
    static func insets(_ fields: ViewportFields, width: Double, height: Double) throws(ViewportQueryError) -> Insets {
        guard let values = try fields.numbers("insets", names: ["top", "left", "bottom", "right"], defaultValue: 0) else {
            return .zero
        }
        for (name, value) in zip(["top", "left", "bottom", "right"], values) where value < 0 {
            throw .outOfRange("insets.\(name)", value, ">= 0")
        }
        let insets = Insets(top: values[0], left: values[1], bottom: values[2], right: values[3])
        let available = (width: width - insets.horizontal, height: height - insets.vertical)
        guard available.width > 0, available.height > 0 else {
            throw ViewportQueryError(field: "insets", message: "insets leave no available area: width - left - right = "
                + "\(ViewportJSON.number(available.width)), height - top - bottom = \(ViewportJSON.number(available.height))")
        }
        return insets
    }

    static func zoomLimits(_ fields: ViewportFields) throws(ViewportQueryError) -> (Double?, Double?) {
        func limit(_ field: String) throws(ViewportQueryError) -> Double? {
            try fields.number(field, in: minZoomScaleLimit...maxZoomScaleLimit, ">= 1e-300 and <= 1000000")
        }
        let minimum = try limit("minZoomScale")
        let maximum = try limit("maxZoomScale")
        if let minimum, let maximum, minimum > maximum {
            throw ViewportQueryError(field: "minZoomScale", message: "minZoomScale (\(ViewportJSON.number(minimum))) "
                + "must not exceed maxZoomScale (\(ViewportJSON.number(maximum)))")
        }
        return (minimum, maximum)
    }

    /// `zoomRect=x,y,w,h` or `tap=x,y[&factor=F][&tapDirection=in|out]`, not both. `factor` and `tapDirection`
    /// are checked even without `tap`.
    static func zoom(_ fields: ViewportFields) throws(ViewportQueryError) -> Zoom? {
        let factor = try fields.number("factor") ?? Zoom.defaultTapFactor
        guard factor > 0 else { throw .outOfRange("factor", factor, "> 0") }
        let direction = try tapDirection(fields)
        let rect = try fields.numbers("zoomRect", names: ["x", "y", "width", "height"])
        let tap = try fields.numbers("tap", names: ["x", "y"])
        switch (rect, tap) {
        case (let r?, nil):
            guard r[2] > 0 else { throw .outOfRange("zoomRect.width", r[2], "> 0") }
            guard r[3] > 0 else { throw .outOfRange("zoomRect.height", r[3], "> 0") }
            return .toRect(Rect(x: r[0], y: r[1], width: r[2], height: r[3]))
        case (nil, let t?):
            return .tap(Point(x: t[0], y: t[1]), factor: factor, direction: direction)
        case (nil, nil):
            return nil
        case (_?, _?):
            throw ViewportQueryError(field: "tap", message: "tap and zoomRect cannot be combined: send one zoom at a time")
        }
    }

    /// `in` (the default: multiply by `factor`) or `out` (divide by it): the two-finger tap is
    /// `tap=x,y&tapDirection=out`, exactly the client's `zoomScale / 1.5`.
    static func tapDirection(_ fields: ViewportFields) throws(ViewportQueryError) -> TapDirection {
        switch fields.value("tapDirection") {
        case nil, .null?:
            return .in
        case .text(let text)?:
            if let direction = TapDirection(rawValue: text) { return direction }
        default:
            break
        }
        throw .malformed("tapDirection", "in or out")
    }
}
