import SeededRandom
import Foundation
import HTTPServer
import TestSupport
import Testing
@testable import Tilescope

/// Thousands of random and mutated requests straight into the application's handler (no socket):
/// every one gets a response, none that is the client's fault gets a 5xx, and every error is JSON
/// `{"error", "message"}` with CORS, so a browser can read why.
///
/// The only 5xx a client may see here is 503 `building` (the image exists, its pyramid is not ready yet,
/// come back after `Retry-After`): it is not the client's fault, and not the server's either. 500
/// `render_failed` or `internal` would be a bug, as would a trap (which ends the whole test run).
///
/// The app is the real one (real pyramids built by libvips, SQLite ratings, uploads to a real folder),
/// wired like `TilescopeService` wires it but with a small IIIF `maxArea`, so that the requests the
/// limit lets through render in milliseconds and the test stays a few seconds long.
@Suite(.serialized) struct HandlerPropertyTests {
    static let adminToken = "property-test-token-that-random-requests-never-guess"
    /// Requests per seed; each seed is its own test case, so a failure names it.
    static let count = 2000

    @Test(arguments: [UInt64(1), 2])
    func randomRequestsGetAJSONAnswerAndNo5xx(seed: UInt64) throws {
        let fixture = try Fixture.shared()
        var generator = RequestGenerator(ids: fixture.ids, seed: seed)
        var statuses: [Int: Int] = [:]
        for index in 0..<Self.count {
            let request = generator.next()
            let response = fixture.respond(to: request)
            statuses[response.status, default: 0] += 1
            let problem = Self.problem(with: response)
            let description = "request \(index) of seed \(seed): \(request.method) \(request.rawPath.prefix(300)) "
                + "query \(request.query) headers \(request.headers) body \(request.body.count) bytes: \(problem ?? "")"
            #expect(problem == nil, Comment(rawValue: description))
            if problem != nil { break }
        }
        print("HandlerPropertyTests seed \(seed): statuses \(statuses.sorted { $0.key < $1.key })")
        // The mix reaches the routes behind the parsers, not only their error paths.
        #expect(statuses.keys.contains(200), "\(statuses)")
        #expect(statuses.filter { (400..<500).contains($0.key) }.count >= 4, "\(statuses)")
    }

    /// Why a response breaks the contract, or nil.
    static func problem(with response: Response) -> String? {
        guard (100..<600).contains(response.status) else { return "status \(response.status)" }
        guard response.header("Access-Control-Allow-Origin") != nil else { return "no Access-Control-Allow-Origin" }
        guard response.status >= 400 else { return nil }
        let body: [UInt8]
        switch response.body {
        case .bytes(let bytes): body = bytes
        case .buffer(let buffer): body = buffer.bytes
        case .empty, .file, .shared: return "error \(response.status) without a JSON body"
        }
        guard response.header("Content-Type")?.hasPrefix("application/json") == true else {
            return "error \(response.status) has Content-Type \(response.header("Content-Type") ?? "none")"
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let code = object["error"] as? String, object["message"] is String else {
            return "error \(response.status) body is not {\"error\", \"message\"}: \(String(decoding: body.prefix(200), as: UTF8.self))"
        }
        if response.status >= 500 && !(response.status == 503 && code == "building") {
            return "\(response.status) \(code) for a request that is the client's fault: \(String(decoding: body.prefix(300), as: UTF8.self))"
        }
        return nil
    }

    /// A library of three built images (an ordinary one, a 1-pixel one, a thin strip) and the app over it.
    final class Fixture: @unchecked Sendable {
        let server: TestServer
        let app: TilescopeApp
        let ids: [String]

        nonisolated(unsafe) private static var instance: Fixture?
        private static let lock = NSLock()

        static func shared() throws -> Fixture {
            lock.lock()
            defer { lock.unlock() }
            if let instance { return instance }
            let fixture = try Fixture()
            instance = fixture
            return fixture
        }

        private init() throws {
            server = try TestServer(label: "handler-property", configure: { $0.adminToken = HandlerPropertyTests.adminToken }) { images in
                try TestImages.writePNG(width: 600, height: 400, to: images + "/tiger.png", seed: 1)
                try TestImages.writePNG(width: 1, height: 1, to: images + "/dot.png", seed: 2)
                try TestImages.writePNG(width: 3, height: 700, to: images + "/strip.png", seed: 3)
                try Data(#"{"tiger.png": {"title": "Tiger", "caption": "striped"}}"#.utf8)
                    .write(to: URL(fileURLWithPath: images + "/captions.json"))
            }
            try server.waitUntilBuilt()
            let service = server.service
            ids = service.library.all.map(\.id).sorted()
            guard ids.count == 3 else { throw TestFailure("expected 3 images, got \(ids)") }
            app = TilescopeApp(
                library: service.library, store: service.store, publicFolder: service.config.publicFolder,
                corsOrigin: "*", operations: service.operations, iiif: IIIFService(cacheBytes: 1 << 20, maxArea: 256 * 256),
                gallery: service.gallery,
                uploads: Uploads(token: AdminToken(HandlerPropertyTests.adminToken), maxBytes: 1 << 16, maxPixels: 1 << 20,
                                 sync: service.sync, library: service.library))
        }

        /// What the server would send: the body decision first (buffer, stream or refuse), then the
        /// handler or the sink, with `.later` work run inline. File bodies are closed unsent.
        func respond(to request: Request) -> Response {
            let response: Response
            switch app.bodyHandling(for: request) {
            case .refuse(let refusal):
                response = refusal
            case .buffer:
                response = run(app.handle(request))
            case .stream(let sink):
                response = stream(request, into: sink)
            }
            return response.closingFile()
        }

        private func stream(_ request: Request, into sink: any BodySink) -> Response {
            // Bodies here are far below the sink's limit: the server's own 413 is not the app's to test.
            var offset = 0
            while offset < request.body.count {
                let end = min(request.body.count, offset + 7 + offset % 100)
                let refusal = request.body[offset..<end].withUnsafeBytes { sink.write($0) }
                if let refusal {
                    sink.abort()
                    return refusal
                }
                offset = end
            }
            var finished = request
            finished.body = []
            return run(sink.finish(finished))
        }

        private func run(_ reply: Reply) -> Response {
            switch reply {
            case .now(let response): return response
            case .later(let work): return work()
            case .costly(let work):
                #expect(work.pixels >= 0)
                return work.make()
            }
        }
    }
}

extension Response {
    /// This response's status and headers with `other`'s in-memory body (a file body stays closed and empty).
    /// The response with a file body's descriptor closed (its bytes are never sent here) and the
    /// body emptied; other bodies are kept for the checks.
    fileprivate func closingFile() -> Response {
        var copy = self
        if case .file(let descriptor, _) = body {
            close(descriptor)
            copy.body = .empty
        }
        return copy
    }
}

/// Requests as a hostile or careless client sends them: valid ones for real images, then mutated
/// (segments swapped for nasty tokens, bytes flipped, numbers pushed to their limits, escapes broken),
/// with random methods, headers and bodies. Seeded, so a failure replays.
struct RequestGenerator {
    let ids: [String]
    var rng: SeededGenerator

    init(ids: [String], seed: UInt64) {
        self.ids = ids
        rng = SeededGenerator(seed: seed)
    }

    static let methods = ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "get", "", "TRACE", "G\u{0}T"]
    static let numbers = ["0", "1", "7", "254", "255", "999999999", "9999999999", "-1", "+1", "1e3", "0x10", "00000001",
                          "18446744073709551616", "9223372036854775807", "-9223372036854775808", "", " 1", "1.5", ".5", "nan", "inf"]
    static let nasty = ["", "..", ".", "%", "%2", "%zz", "%2F", "%2e%2e", "%00", "%C3%28", "%E2%82%AC", "a%2Fb", "\u{1F600}",
                        "ü", "*", "?", "#", ";", "\\", "..%2F..%2Fetc%2Fpasswd", String(repeating: "a", count: 300),
                        String(repeating: "%41", count: 800), "info.json", "preview.jpeg", "viewport", "rating", "images",
                        "full", "max", "^max", "square", "default.jpg", "x.dzi", "x_files"]
    static let regions = ["full", "square", "0,0,10,10", "pct:0,0,50,50", "pct:10.5,20,30,40", "599,399,1,1", "600,0,1,1",
                          "0,0,999999999,999999999", "999999999,999999999,1,1", "pct:100,100,1,1", "pct:0,0,999999999,999999999",
                          "0,0,0,0", "-1,0,1,1", "1,2,3", "pct:.5,.5,.5,.5", "pct:1e2,0,1,1", "0,0,1,1,1", "pct:0.000000001,0,1,1"]
    static let sizes = ["max", "^max", "full", "64,", ",64", "^64,", "^,999999999", "^999999999,", "^pct:999999999", "pct:50",
                        "pct:0.0000001", "!64,64", "^!999999999,999999999", "32,32", "^256,256", "^257,256", "0,0", ",",
                        "!,64", "pct:", "^pct:200", "^!64,64", "999999999,999999999", "pct:-5", "^^max"]
    static let rotations = ["0", "90", "180", "270", "!0", "!90", "22.5", "360", "361", "-90", "!", "1e2", "999999999.99999"]
    static let qualityFormats = ["default.jpg", "color.png", "gray.webp", "bitonal.tif", "default.gif", "default.jp2",
                                 "default.bmp", "fancy.jpg", "default", ".jpg", "default.", "default.jpg.png"]
    static let viewportFields = ["width", "height", "scale", "zoomScale", "offsetX", "offsetY", "insets", "minZoomScale",
                                 "maxZoomScale", "zoomRect", "tap", "factor", "prefetch", "tileURLs"]
    static let viewportValues = ["1024", "768", "1", "4", "0.5", "16384", "16385", "1e6", "1e-300", "-1e308", "1e999", "nan",
                                 "0", "-0", "+3", " 7 ", "0x1p3", "0,0,0,0", "10,10,10,10", "1,2,3,4", "1,2", "true", "",
                                 "5000,5000,5000,5000", "1e308,1e308,1,1", "1,1,1e-320,1e-320"]
    static let jsonBodies = [#"{"rating": 7}"#, #"{"rating": 11}"#, #"{"rating": -1}"#, #"{"rating": 7.5}"#, #"{"rating": "7"}"#,
                             #"{"rating": null}"#, #"{"rating": 1e400}"#, #"{"rating": 99999999999999999999}"#, "[]", "{}", "",
                             "null", #"{"width": 1024, "height": 768}"#, #"{"width": 1e308, "height": 1e-308, "zoomScale": 1e6}"#,
                             #"{"width": 800, "height": 600, "insets": {"top": 1e308}}"#, #"{"width": [1], "height": {}}"#,
                             #"{"width": 800, "height": 600, "zoomRect": [0, 0, 1e-300, 1e-300], "prefetch": true}"#,
                             "{\"width\": 800, \"height\": 600, \"tap\": \"1,2\", \"factor\": 1e300}", "{\"a\":", "\u{0}\u{1}"]
    static let headerValues: [(String, [String])] = [
        ("if-none-match", ["*", "\"x\"", "W/\"1\"", "\"\"", String(repeating: "\"a\",", count: 200)]),
        ("range", ["bytes=0-10", "bytes=-5", "bytes=99999999999999999999-", "bytes=5-1", "chars=1-2"]),
        ("host", ["example.org", "", "a b", "[::1]:8080", String(repeating: "h", count: 300), "ex\"ample"]),
        ("x-forwarded-host", ["proxy.example", ",,,", "\u{7f}"]),
        ("x-forwarded-proto", ["https", "gopher", ""]),
        ("accept", ["application/ld+json", "*/*", ""]),
        ("content-type", ["multipart/form-data; boundary=XyZ", "multipart/form-data", "multipart/form-data; boundary=",
                          "application/json", "multipart/form-data; boundary=\"" + String(repeating: "b", count: 80) + "\""]),
        ("content-disposition", ["attachment; filename=\"a.png\"", "attachment; filename*=UTF-8''%E2%82%AC.png",
                                 "attachment; filename=\"../../x\"", "filename=\""]),
        ("content-length", ["0", "-1", "99999999999999999999", "abc"]),
        ("authorization", ["Bearer wrong", "Bearer", "Basic eDp5", "Bearer \(HandlerPropertyTests.adminToken)"]),
    ]

    mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &rng)! }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    /// A request path for one of the images, valid or nearly.
    mutating func validPath() -> (path: String, query: [String: String]) {
        let id = chance(90) ? pick(ids) : pick(["nosuch", "", "%2F", ".."])
        switch Int.random(in: 0..<13, using: &rng) {
        case 0: return ("/dzi/\(id).dzi", [:])
        case 1, 2: return ("/dzi/\(id)_files/\(pick(Self.numbers))/\(pick(Self.numbers))_\(pick(Self.numbers)).jpeg", [:])
        case 3: return ("/images/\(id)/preview.jpeg", ["v": pick(Self.numbers)])
        case 4, 5:
            return ("/iiif/3/\(id)/\(pick(Self.regions))/\(pick(Self.sizes))/\(pick(Self.rotations))/\(pick(Self.qualityFormats))", [:])
        case 6: return ("/iiif/3/\(id)/info.json", [:])
        case 7, 8:
            var query: [String: String] = [:]
            for field in Self.viewportFields where chance(40) { query[field] = pick(Self.viewportValues) }
            if chance(70) { query["width"] = pick(["1024", "800", "16384"]); query["height"] = pick(["768", "600", "1"]) }
            return ("/api/images/\(id)/viewport", query)
        case 9: return ("/api/images/\(id)/rating", [:])
        case 10: return (pick(["/api/images", "/api/gallery", "/api/images/\(id)", "/api/jobs/\(id)", "/iiif/3/\(id)"]),
                         ["page": pick(Self.numbers), "sort": pick(["rating", "name", "random", ""])])
        case 11: return ("/api/images", [:])
        default: return (pick(["/", "/index.html", "/healthz", "/readyz", "/metrics", "/js/../../etc/passwd", "/nothing"]), [:])
        }
    }

    /// Changes one thing about a path: a segment, a byte, a percent-escape, its length.
    mutating func mutate(_ path: String) -> String {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0 where segments.count > 1:
            segments[Int.random(in: 1..<segments.count, using: &rng)] = pick(Self.nasty)
        case 1 where segments.count > 1:
            segments.insert(pick(Self.nasty), at: Int.random(in: 1...segments.count, using: &rng))
        case 2 where segments.count > 2:
            segments.remove(at: Int.random(in: 1..<segments.count, using: &rng))
        case 3:
            var bytes = Array(path.utf8)
            if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0x20...0x7e, using: &rng) }
            return String(decoding: bytes, as: UTF8.self)
        case 4:
            return path + String(repeating: pick(["/a", "%2F", "x"]), count: Int.random(in: 1...1200, using: &rng))
        case 5:
            return path.replacingOccurrences(of: pick(["/", "_", ".", ","]), with: pick(["%2F", "%5F", "%2E", "%2C", "%", "//"]))
        default:
            return path
        }
        return segments.joined(separator: "/")
    }

    mutating func body() -> [UInt8] {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return []
        case 1: return Array(pick(Self.jsonBodies).utf8)
        case 2:
            let file = chance(50) ? Array("\u{89}PNG\r\n\u{1a}\n".utf8) + [0, 0, 0, 13] : Array("not an image".utf8)
            return Array("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(pick(Self.nasty))\"\r\n\r\n".utf8)
                + file + Array(pick(["\r\n--XyZ--\r\n", "\r\n--XyZ", "", "\r\n--XyZ\r\n\r\n"]).utf8)
        default:
            var bytes = Array(pick(Self.jsonBodies).utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            return bytes
        }
    }

    mutating func next() -> Request {
        var (path, query) = validPath()
        for _ in 0..<(chance(50) ? 0 : Int.random(in: 1...2, using: &rng)) { path = mutate(path) }
        if chance(10) { query[pick(Self.nasty)] = pick(Self.nasty) }
        var method = chance(60) ? "GET" : pick(Self.methods)
        if path.hasSuffix("/rating") && chance(60) { method = "PUT" }
        if path.hasSuffix("/viewport") && chance(30) { method = "POST" }
        if path == "/api/images" && chance(70) { method = "POST" }
        var headers: [String: String] = [:]
        for (name, values) in Self.headerValues where chance(15) { headers[name] = pick(values) }
        if method == "POST" && path == "/api/images" && chance(70) {
            headers["content-type"] = "multipart/form-data; boundary=XyZ"
            headers["authorization"] = "Bearer \(HandlerPropertyTests.adminToken)"
        }
        // Deletion with the token would empty the library for the rest of the run.
        if method == "DELETE" { headers["authorization"] = "Bearer wrong" }
        let body = ["POST", "PUT", "PATCH"].contains(method) || chance(5) ? body() : []
        return Request(method: method, rawPath: path, query: query, headers: headers, body: body, clientAddress: "127.0.0.1")
    }
}
