import Foundation
import Testing
import ScrollGeometry
import SeededRandom
import HTTPServer
@testable import Tilescope

/// Parsing of viewport requests: defaults, both encodings, and every bad-input case of issue 3.
@Suite struct ViewportQueryTests {
    let base = ["width": "1024", "height": "768"]

    func query(_ extra: [String: String]) throws -> ViewportQuery {
        try ViewportQuery.parse(query: base.merging(extra) { $1 })
    }

    /// The error for a query string, or `nil` when it parses.
    func failure(_ fields: [String: String]) -> ViewportQueryError? {
        do {
            _ = try ViewportQuery.parse(query: fields)
            return nil
        } catch {
            return error
        }
    }

    func failure(json: String) -> ViewportQueryError? {
        do {
            _ = try ViewportQuery.parse(json: Array(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func defaults() throws {
        let parsed = try query([:])
        #expect(parsed.scrollView == ScrollView(boundsSize: Size(width: 1024, height: 768)))
        #expect(parsed.scrollView.scale == 1)
        #expect(parsed.scrollView.zoomScale == nil)
        #expect(parsed.zoom == nil)
        #expect(parsed.prefetch == false)
        #expect(parsed.tileURLs == false && parsed.tileFrames == false && parsed.listing == .grid)
    }

    @Test func everyFieldFromAQueryString() throws {
        let parsed = try query(["scale": "2", "zoomScale": "0.5", "offsetX": "-10.5", "offsetY": "1e3",
                                "insets": "10,20,30,40", "minZoomScale": "0.1", "maxZoomScale": "4",
                                "tap": "100,200", "factor": "0.6667", "prefetch": "1", "v": "ignored"])
        #expect(parsed.scrollView == ScrollView(
            boundsSize: Size(width: 1024, height: 768), scale: 2, zoomScale: 0.5,
            contentOffset: Point(x: -10.5, y: 1000), contentInset: Insets(top: 10, left: 20, bottom: 30, right: 40),
            minimumZoomScale: 0.1, maximumZoomScale: 4))
        #expect(parsed.zoom == .tap(Point(x: 100, y: 200), factor: 0.6667))
        #expect(parsed.prefetch)
        #expect(try query(["zoomRect": "1, 2, 3, 4"]).zoom == .toRect(Rect(x: 1, y: 2, width: 3, height: 4)))
        #expect(try query(["tap": "5,6"]).zoom == .tap(Point(x: 5, y: 6), factor: 1.5))
        #expect(try query(["prefetch": "false"]).prefetch == false)
        #expect(try query(["scale": "+4", "offsetX": " 7 ", "offsetY": ".5"]).scrollView.contentOffset == Point(x: 7, y: 0.5))
    }

    @Test func jsonBodyWithNumbersArraysAndObjects() throws {
        let body = """
        {"width": 1024, "height": 768, "scale": 2, "zoomScale": 0.5, "offsetX": -10.5, "offsetY": 1000,
         "insets": {"top": 10, "right": 40}, "minZoomScale": null, "maxZoomScale": 4,
         "zoomRect": [1, 2, 3, 4], "prefetch": true, "unknown": [["ignored"]]}
        """
        let parsed = try ViewportQuery.parse(json: Array(body.utf8))
        #expect(parsed.scrollView == ScrollView(
            boundsSize: Size(width: 1024, height: 768), scale: 2, zoomScale: 0.5,
            contentOffset: Point(x: -10.5, y: 1000), contentInset: Insets(top: 10, left: 0, bottom: 0, right: 40),
            maximumZoomScale: 4))
        #expect(parsed.zoom == .toRect(Rect(x: 1, y: 2, width: 3, height: 4)))
        #expect(parsed.prefetch)

        let strings = try ViewportQuery.parse(json: Data(#"{"width":10,"height":10,"insets":"1,1,1,1","tap":{"x":3,"y":4},"prefetch":0}"#.utf8))
        #expect(strings.scrollView.contentInset == Insets(top: 1, left: 1, bottom: 1, right: 1))
        #expect(strings.zoom == .tap(Point(x: 3, y: 4), factor: 1.5))
        #expect(!strings.prefetch)
        let rectObject = try ViewportQuery.parse(json: Array(#"{"width":10,"height":10,"zoomRect":{"x":0,"y":0,"width":5,"height":6}}"#.utf8))
        #expect(rectObject.zoom == .toRect(Rect(x: 0, y: 0, width: 5, height: 6)))
    }

    @Test func tapDirection() throws {
        #expect(try query(["tap": "5,6", "tapDirection": "out"]).zoom == .tap(Point(x: 5, y: 6), factor: 1.5, direction: .out))
        #expect(try query(["tap": "5,6", "tapDirection": "in", "factor": "2"]).zoom == .tap(Point(x: 5, y: 6), factor: 2))
        let json = try ViewportQuery.parse(json: Array(#"{"width":10,"height":10,"tap":[1,2],"tapDirection":"out"}"#.utf8))
        #expect(json.zoom == .tap(Point(x: 1, y: 2), factor: 1.5, direction: .out))
        for bad in ["OUT", "", "down", "1"] {
            #expect(throws: ViewportQueryError(field: "tapDirection", message: "tapDirection must be in or out")) {
                try query(["tap": "5,6", "tapDirection": bad])
            }
        }
        #expect(throws: ViewportQueryError.self) {
            try ViewportQuery.parse(json: Array(#"{"width":10,"height":10,"tapDirection":-1}"#.utf8))
        }
    }

    @Test func missingSizes() {
        #expect(failure([:]) == ViewportQueryError(field: "width", message: "width is required"))
        #expect(failure(["width": "10"])?.field == "height")
        #expect(failure(json: #"{"height": 10}"#)?.message == "width is required")
        #expect(failure(json: #"{"width": null, "height": 10}"#)?.message == "width is required")
    }

    @Test func nonNumericValues() {
        for text in ["abc", "", "1,2", "0x10", "1e", "--1", "1.2.3", "١٢", "10px", " "] {
            let error = failure(["width": text, "height": "10"])
            #expect(error?.field == "width", "\(text)")
            #expect(error?.message.hasPrefix("width must be a number") == true, "\(text)")
        }
        #expect(failure(["width": "10", "height": "10", "zoomScale": "big"])?.field == "zoomScale")
        #expect(failure(["width": "10", "height": "10", "offsetY": "north"])?.field == "offsetY")
        // A JSON string holding a number is read like the query string (documented); other strings are not.
        #expect(failure(json: #"{"width": "10", "height": 10}"#) == nil)
        #expect(failure(json: #"{"width": "ten", "height": 10}"#)?.message == "width must be a number, got 'ten'")
        #expect(failure(json: #"{"width": true, "height": 10}"#)?.field == "width")
        #expect(failure(json: #"{"width": [10], "height": 10}"#)?.field == "width")
    }

    @Test func nanAndInfinity() {
        #expect(failure(["width": "NaN", "height": "10"]) == ViewportQueryError(field: "width", message: "width must not be NaN"))
        #expect(failure(["width": "10", "height": "-nan"])?.message == "height must not be NaN")
        #expect(failure(["width": "inf", "height": "10"])?.message == "width must be finite, got inf")
        #expect(failure(["width": "10", "height": "10", "offsetX": "-Infinity"])?.message == "offsetX must be finite, got -inf")
        #expect(failure(["width": "10", "height": "10", "offsetX": "1e999"])?.message == "offsetX must be finite, got 1e999")
        #expect(failure(["width": "10", "height": "10", "insets": "0,nan,0,0"])?.message == "insets.left must not be NaN")
        #expect(failure(["width": "10", "height": "10", "zoomRect": "0,0,inf,1"])?.field == "zoomRect.width")
        #expect(failure(["width": "10", "height": "10", "tap": "1,NaN"])?.field == "tap.y")
        #expect(failure(["width": "10", "height": "10", "factor": "nan"])?.field == "factor")
    }

    @Test func sizesMustBePositiveAndAtMost16384() {
        #expect(failure(["width": "0", "height": "10"])?.message == "width must be >= 0.001 and <= 16384, got 0")
        #expect(failure(["width": "10", "height": "-5"])?.message == "height must be >= 0.001 and <= 16384, got -5")
        #expect(failure(["width": "16384.5", "height": "10"])?.field == "width")
        #expect(failure(["width": "16384", "height": "16384"]) == nil)
        #expect(failure(["width": "0.001", "height": "0.001"]) == nil)
    }

    /// Found by schemathesis: subnormal sides or zoom limits made the aspect fit 0 (or 1/zoomScale
    /// infinite) and the answer carried NaN as null. They are out of range now.
    @Test func subnormalSidesAndZoomLimitsAreRefused() throws {
        #expect(failure(["width": "5e-324", "height": "5e-324"])?.field == "width")
        #expect(failure(["width": "1280", "height": "1.48e-321", "zoomScale": "5e-324"])?.field == "height")
        #expect(failure(["width": "1280", "height": "800", "minZoomScale": "5e-324"])?.message
                == "minZoomScale must be >= 1e-300 and <= 1000000, got 5e-324")
        let query = try ViewportQuery.parse(json: Array(#"{"width": 0.001, "height": 1280, "zoomScale": 5e-324}"#.utf8))
        let viewport = query.viewport(for: Pyramid(width: 60_000, height: 40_000))
        #expect(viewport.zoomScale > 0 && viewport.visibleRect.width.isFinite && viewport.visibleRect.height > 0)
    }

    @Test func scaleMustBeFrom1To4() {
        #expect(failure(base.merging(["scale": "0.5"]) { $1 })?.message == "scale must be from 1 to 4, got 0.5")
        #expect(failure(base.merging(["scale": "4.01"]) { $1 })?.field == "scale")
        #expect(failure(base.merging(["scale": "0"]) { $1 })?.field == "scale")
        #expect(failure(base.merging(["scale": "1"]) { $1 }) == nil)
        #expect(failure(base.merging(["scale": "4"]) { $1 }) == nil)
    }

    @Test func zoomScaleMustBePositiveButIsOtherwiseClamped() throws {
        #expect(failure(base.merging(["zoomScale": "0"]) { $1 })?.message == "zoomScale must be > 0, got 0")
        #expect(failure(base.merging(["zoomScale": "-1"]) { $1 })?.field == "zoomScale")
        #expect(try query(["zoomScale": "1e300"]).scrollView.zoomScale == 1e300)
        #expect(try query(["offsetX": "-1e300", "offsetY": "1e300"]).scrollView.contentOffset == Point(x: -1e300, y: 1e300))
    }

    @Test func malformedInsets() {
        for text in ["1,2,3", "1,2,3,4,5", "", "1;2;3;4", "1,,3,4"] {
            #expect(failure(base.merging(["insets": text]) { $1 })?.field.hasPrefix("insets") == true, "\(text)")
        }
        #expect(failure(base.merging(["insets": "1,2,3"]) { $1 })?.message
            == #"insets must be 4 numbers "top,left,bottom,right""#)
        #expect(failure(base.merging(["insets": "0,-1,0,0"]) { $1 })?.message == "insets.left must be >= 0, got -1")
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": [1, 2]}"#)?.field == "insets")
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": {"up": 1}}"#)?.message
            == #"insets must be 4 numbers "top,left,bottom,right" (unknown key 'up')"#)
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": 5}"#)?.field == "insets")
    }

    @Test func insetsMustLeaveAnAvailableArea() {
        #expect(failure(base.merging(["insets": "0,500,0,524"]) { $1 })?.message
            == "insets leave no available area: width - left - right = 0, height - top - bottom = 768")
        #expect(failure(base.merging(["insets": "400,0,400,0"]) { $1 })?.field == "insets")
        #expect(failure(base.merging(["insets": "383,0,384,0"]) { $1 }) == nil)
    }

    @Test func zoomLimitsMustBePositiveAndOrdered() {
        #expect(failure(base.merging(["minZoomScale": "0"]) { $1 })?.field == "minZoomScale")
        #expect(failure(base.merging(["maxZoomScale": "-2"]) { $1 })?.field == "maxZoomScale")
        #expect(failure(base.merging(["maxZoomScale": "1e7"]) { $1 })?.message == "maxZoomScale must be >= 1e-300 and <= 1000000, got 10000000")
        #expect(failure(base.merging(["minZoomScale": "2", "maxZoomScale": "1"]) { $1 })?.message
            == "minZoomScale (2) must not exceed maxZoomScale (1)")
        #expect(failure(base.merging(["minZoomScale": "1", "maxZoomScale": "1"]) { $1 }) == nil)
    }

    @Test func malformedZooms() {
        #expect(failure(base.merging(["zoomRect": "1,2,3"]) { $1 })?.message == #"zoomRect must be 4 numbers "x,y,width,height""#)
        #expect(failure(base.merging(["zoomRect": "0,0,0,10"]) { $1 })?.message == "zoomRect.width must be > 0, got 0")
        #expect(failure(base.merging(["zoomRect": "0,0,10,-1"]) { $1 })?.field == "zoomRect.height")
        #expect(failure(base.merging(["tap": "1"]) { $1 })?.message == #"tap must be 2 numbers "x,y""#)
        #expect(failure(base.merging(["tap": "1,2", "factor": "0"]) { $1 })?.message == "factor must be > 0, got 0")
        #expect(failure(base.merging(["factor": "-1"]) { $1 })?.field == "factor")
        #expect(failure(base.merging(["tap": "1,2", "zoomRect": "0,0,1,1"]) { $1 })?.field == "tap")
        #expect(failure(json: #"{"width": 10, "height": 10, "zoomRect": {"x": 0, "y": 0, "width": 1}}"#)?.message
            == "zoomRect.height is required")
    }

    @Test func prefetchIsAFlag() {
        #expect(failure(base.merging(["prefetch": "maybe"]) { $1 })?.message == "prefetch must be 1 or 0 (true or false)")
        #expect(failure(json: #"{"width": 10, "height": 10, "prefetch": 2}"#)?.field == "prefetch")
    }

    @Test func tileFramesIsAFlag() throws {
        for (text, value) in [("1", true), ("true", true), ("0", false), ("false", false)] {
            let parsed = try query(["tileFrames": text])
            #expect(parsed.tileFrames == value && parsed.listing == (value ? .objects : .grid), "\(text)")
        }
        for (json, value) in [("true", true), ("0", false), ("null", false)] {
            let parsed = try ViewportQuery.parse(json: Array(#"{"width": 10, "height": 10, "tileFrames": \#(json)}"#.utf8))
            #expect(parsed.tileFrames == value, "\(json)")
        }
        #expect(try query(["tileFrames": "0", "tileURLs": "1"]).listing == .objectsWithURLs)
        #expect(failure(base.merging(["tileFrames": "yes"]) { $1 })?.message == "tileFrames must be 1 or 0 (true or false)")
        #expect(failure(json: #"{"width": 10, "height": 10, "tileFrames": 2}"#)?.field == "tileFrames")
    }

    @Test func tileURLsIsAFlag() throws {
        for (text, value) in [("1", true), ("true", true), ("0", false), ("false", false)] {
            #expect(try query(["tileURLs": text]).tileURLs == value, "\(text)")
        }
        for (json, value) in [("true", true), ("1", true), ("false", false), ("0", false), ("\"1\"", true), ("null", false)] {
            let parsed = try ViewportQuery.parse(json: Array(#"{"width": 10, "height": 10, "tileURLs": \#(json)}"#.utf8))
            #expect(parsed.tileURLs == value, "\(json)")
        }
        #expect(failure(base.merging(["tileURLs": "yes"]) { $1 })?.message == "tileURLs must be 1 or 0 (true or false)")
        #expect(failure(base.merging(["tileURLs": ""]) { $1 })?.field == "tileURLs")
        #expect(failure(json: #"{"width": 10, "height": 10, "tileURLs": 2}"#)?.field == "tileURLs")
        #expect(failure(json: #"{"width": 10, "height": 10, "tileURLs": [true]}"#)?.message
            == "tileURLs must be 1 or 0 (true or false)")
    }

    @Test func unreadableBodies() {
        for body in ["", "not json", "[1, 2]", "42", #"{"width": 10"#, #"{"width": 1e999, "height": 1}"#] {
            let error = failure(json: body)
            #expect(error?.field == "body" || error?.field == "width", "\(body)")
        }
        #expect(failure(json: "[]") == ViewportQueryError(field: "body", message: "body must be a JSON object of viewport fields"))
    }

    /// A numeral beyond Double (`1e400`) or below its least subnormal (`1e-400`) is a number: a field with a
    /// range says the range, any other says it must be finite, and a JSON body hears exactly what the query
    /// string hears for the same text.
    @Test(arguments: [
        ("width", "1e400", "width must be >= 0.001 and <= 16384, got 1e400"),
        ("width", "-1e400", "width must be >= 0.001 and <= 16384, got -1e400"),
        ("width", "1e23", "width must be >= 0.001 and <= 16384, got 1e+23"),
        ("width", "1e-400", "width must be >= 0.001 and <= 16384, got 0"),
        ("height", "1e400", "height must be >= 0.001 and <= 16384, got 1e400"),
        ("scale", "1e400", "scale must be from 1 to 4, got 1e400"),
        ("minZoomScale", "1e400", "minZoomScale must be >= 1e-300 and <= 1000000, got 1e400"),
        ("maxZoomScale", "-1e400", "maxZoomScale must be >= 1e-300 and <= 1000000, got -1e400"),
        ("zoomScale", "1e400", "zoomScale must be finite, got 1e400"),
        ("offsetX", "1e400", "offsetX must be finite, got 1e400"),
        ("offsetY", "-1e400", "offsetY must be finite, got -1e400"),
        ("factor", "1e400", "factor must be finite, got 1e400"),
    ])
    func hugeNumbersSayTheirRangeTheSameWayFromBothEncodings(field: String, text: String, message: String) {
        var fields = ["width": "10", "height": "10"]
        fields[field] = text
        #expect(failure(fields)?.message == message, "query \(field)=\(text)")
        let body = "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        #expect(failure(json: body)?.message == message, "\(body)")
        #expect(failure(json: body)?.field == field)
    }

    /// The same for the numbers inside insets, zoomRect and tap: comma text, JSON array and JSON object agree.
    @Test func hugeNumbersInListsSayTheSameWhicheverWayTheyCome() {
        let query = failure(["width": "10", "height": "10", "insets": "0,1e400,0,0"])
        #expect(query?.message == "insets.left must be finite, got 1e400")
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": [0, 1e400, 0, 0]}"#) == query)
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": {"left": 1e400}}"#) == query)
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": "0,1e400,0,0"}"#) == query)
        let tap = failure(["width": "10", "height": "10", "tap": "1,-1e999"])
        #expect(tap?.message == "tap.y must be finite, got -1e999")
        #expect(failure(json: #"{"width": 10, "height": 10, "tap": [1, -1e999]}"#) == tap)
    }

    /// A field read twice is refused, from a query string and from a JSON body alike; a name the viewport does
    /// not read (a cache-busting `v`) may repeat as it may appear at all.
    @Test func aFieldGivenTwiceIsRefusedEitherWay() throws {
        var query = QueryArguments()
        query.set("width", "10")
        query.set("height", "10")
        query.set("width", "20")
        #expect(throws: ViewportQueryError(field: "width", message: "width is given twice")) {
            try ViewportQuery.parse(query: query)
        }
        #expect(failure(json: #"{"width": 10, "height": 10, "width": 20}"#)
            == ViewportQueryError(field: "width", message: "width is given twice"))
        // The same value twice is still twice: which one counts must never matter.
        #expect(failure(json: #"{"width": 10, "height": 10, "height": 10}"#)?.message == "height is given twice")
        // Escapes do not hide a repeat: "w\u0069dth" is "width".
        #expect(failure(json: #"{"width": 10, "height": 10, "w\u0069dth": 20}"#)?.message == "width is given twice")
        #expect(failure(json: #"{"width": 10, "height": 10, "insets": {"top": 1, "top": 2}}"#)
            == ViewportQueryError(field: "insets.top", message: "insets.top is given twice"))
        var busted = QueryArguments()
        for (name, value) in [("width", "10"), ("height", "10"), ("v", "1"), ("v", "2")] { busted.set(name, value) }
        #expect(throws: Never.self) { try ViewportQuery.parse(query: busted) }
        #expect(failure(json: #"{"width": 10, "height": 10, "v": 1, "v": 2, "note": {"a": 1, "a": 2}}"#) == nil)
    }

    @Test func messagesAreShortEvenForLongInput() {
        let long = String(repeating: "x", count: 100_000)
        let error = failure(["width": long, "height": "1"])
        #expect(error?.field == "width")
        #expect((error?.message.count ?? .max) < 100)
    }

    /// The fast path for short plain decimals gives `Double(String)`'s double bit for bit (50,000 seeded random
    /// decimals of 1 to 15 digits, the point anywhere, leading and trailing zeros) and leaves everything else,
    /// exponents, signs, spaces, a 16th digit, to the full parser.
    @Test func shortDecimalsAreParsedExactly() {
        var random = SeededGenerator(seed: 1_511)
        var mismatches: [String] = []
        for _ in 0..<50_000 {
            let count = Int.random(in: 1...15, using: &random)
            var digits = String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            switch Int.random(in: 0..<4, using: &random) {
            case 0: break
            case 1: digits.insert(".", at: digits.startIndex)
            case 2: digits.append(".")
            default: digits.insert(".", at: digits.index(digits.startIndex, offsetBy: Int.random(in: 0...count, using: &random)))
            }
            guard let fast = ViewportFields.shortDecimal(digits.utf8), let exact = Double(digits),
                  fast.bitPattern == exact.bitPattern else {
                mismatches.append(digits)
                continue
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        for text in ["", ".", "1234567890123456", "0.0000000000000001", "1e5", "-1", "+1", " 1", "1 ", "1.2.3", "0x10",
                     "nan", "1,5", "١"] {
            #expect(ViewportFields.shortDecimal(text.utf8) == nil, "\(text)")
        }
        #expect(ViewportFields.shortDecimal("0.336643".utf8) == 0.336643)
        #expect(ViewportFields.shortDecimal("123456789012345".utf8) == 123_456_789_012_345)
    }
}
