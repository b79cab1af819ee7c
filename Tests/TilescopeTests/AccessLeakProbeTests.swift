import Foundation
@testable import HTTPServer
import Imaging
import TestSupport
import Testing
@testable import Tilescope

/// Issue 42's first goal: every route of the contract (Sources/Tilescope/OpenAPI/openapi.json), with every
/// parameter varied, asked about a private image without a credential, with an expired signed URL, one for
/// another image, forged ones, and one replayed after its expiry (after it was answered, and kept in the hot
/// table, while valid): no answer holds a byte run of the image's real pixels or an image at all, and none
/// names a private image's id, file name, title or caption. The lists are public and are probed too: they may
/// name public images only (docs/access.md says what is listed).
@Suite(.serialized) struct AccessLeakProbeTests {
    init() throws { try Vips.start() }

    /// One request of the probe: method, path (without a signed prefix), headers and body.
    struct Probe: Hashable {
        var method = "GET"
        var path: String
        var headers: [String: String] = [:]
        var body = ""
        /// Whether the path names a private image (else a list, an operations endpoint or a static file).
        var namesPrivate: Bool
        /// The private image the probe is about (in its path or its query).
        var id = ""

        /// The same probe about an image that does not exist.
        var aboutUnknown: Probe {
            var probe = self
            probe.path = path.replacingOccurrences(of: id, with: AccessLeakProbeTests.unknownID)
            return probe
        }
    }

    static let unknownID = "nosuchimagezz9"

    /// Each parameter's values: the first is the default, the others are tried one at a time.
    static func samples(version: String) -> [String: [String]] {
        ["level": ["9", "0", "10", "99"], "column": ["0", "1"], "row": ["0"], "tileFormat": ["webp", "avif", "png", "jpeg"],
         "step": ["1", "2", "3"], "betweenFormat": ["avif", "jpeg", "webp"],
         "version": [version, "0123456789abcdef"], "region": ["full", "square", "0,0,100,100", "pct:10,10,50,50"],
         "size": ["max", "100,", "^max", "pct:50", "!64,64"], "rotation": ["0", "!90", "45"],
         "quality": ["default", "color", "gray", "bitonal"], "format": ["jpg", "png", "webp", "gif", "tif"],
         "name": ["label", "macro", "thumbnail"], "file": ["index.html", "embed.html"], "folder": ["gallery", "tiles"]]
    }

    /// Query strings to try on a template: none, the image's version, and the endpoint's own arguments.
    static func queries(_ template: String, id: String, version: String) -> [String] {
        var queries = ["", "?v=\(version)"]
        if template.hasSuffix(".dzi") { queries += ["?format=webp", "?format=avif&v=\(version)"] }
        if template.hasSuffix("/viewport") { queries += ["?width=300&height=200&zoomScale=2&tileURLs=1&tileFrames=1"] }
        if template == "/api/gallery" { queries += ["?image=\(id)", "?page=0", "?page=1", "?page=2", "?page=3"] }
        if template == "/api/images" { queries += ["?limit=5", "?sort=rating", "?sort=added", "?limit=1&cursor=x"] }
        if template.hasPrefix("/iiif/presentation/") { queries += ["?page=1", "?sort=rating"] }
        return queries
    }

    /// Every probe for the private image `id`, from the contract's paths and methods.
    static func probes(id: String, version: String) throws -> [Probe] {
        let paths = try #require(try OpenAPIEndpointTests.document()["paths"] as? [String: [String: Any]])
        let samples = samples(version: version)
        var probes: [Probe] = []
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            let namesPrivate = template.contains("{id}")
            // Each parameter at its default, then each of its other values alone.
            var variants = [[String: String]()]
            for (name, values) in samples where template.contains("{\(name)}") {
                variants += values.dropFirst().map { [name: $0] }
            }
            for variant in variants {
                var path = template.replacingOccurrences(of: "{id}", with: id)
                for (name, values) in samples { path = path.replacingOccurrences(of: "{\(name)}", with: variant[name] ?? values[0]) }
                for query in queries(template, id: id, version: version) {
                    for method in item.keys.map({ $0.uppercased() }) where ["GET", "PUT", "POST", "DELETE"].contains(method) {
                        switch method {
                        case "GET":
                            probes.append(Probe(path: path + query, namesPrivate: namesPrivate))
                            probes.append(Probe(method: "HEAD", path: path + query, namesPrivate: namesPrivate))
                            probes.append(Probe(path: path + query, headers: ["If-None-Match": "*", "Accept": "image/jxl,image/avif,*/*"],
                                                namesPrivate: namesPrivate))
                        case "PUT": probes.append(Probe(method: "PUT", path: path, headers: ["Content-Type": "application/json"],
                                                        body: #"{"rating": 3}"#, namesPrivate: namesPrivate))
                        case "POST" where template.hasSuffix("/viewport"):
                            probes.append(Probe(method: "POST", path: path, headers: ["Content-Type": "application/json"],
                                                body: #"{"width": 300, "height": 200, "zoomScale": 2, "tileURLs": true}"#, namesPrivate: true))
                        case "POST" where template == "/api/images":
                            continue  // an upload: the admin token's, tested in UploadTests
                        case "POST": probes.append(Probe(method: "POST", path: path, body: "{}", namesPrivate: namesPrivate))
                        default: probes.append(Probe(method: method, path: path, namesPrivate: namesPrivate))
                        }
                    }
                }
            }
        }
        for index in probes.indices { probes[index].id = id }
        return Array(Set(probes)).sorted { ($0.path, $0.method) < ($1.path, $1.method) }
    }

    static func send(_ port: Int, _ probe: Probe, prefix: String, extra: [String: String] = [:]) throws -> RawHTTP.Reply {
        try RawHTTP(port: port).send(probe.method, prefix + probe.path, headers: probe.headers.merging(extra) { a, _ in a },
                                     body: Array(probe.body.utf8))
    }

    /// Byte runs of the private images' real answers (tiles in every format, previews, IIIF renders), fetched
    /// with the admin token: 32 bytes every 32 of each body past its first 64 (headers of a format repeat).
    static func pixelRuns(_ gallery: PrivateGallery, ids: [String]) throws -> Set<[UInt8]> {
        let admin = ["Authorization": "Bearer \(PrivateGallery.adminToken)"]
        var runs = Set<[UInt8]>(), answered = 0
        for id in ids {
            let version = try gallery.version(id)
            var paths = ["/images/\(id)/preview.jpeg?v=\(version)", "/images/\(id)/preview.avif", "/images/\(id)/preview.png",
                         "/iiif/3/\(id)/full/max/0/default.jpg", "/iiif/3/\(id)/full/max/0/default.png", "/iiif/2/\(id)/full/full/0/default.jpg",
                         "/iiif/3/\(id)/0,0,100,100/max/0/default.webp"]
            for level in 0...10 {
                for format in ["jpeg", "webp", "avif"] { paths.append("/dzi/\(id)_files/\(level)/0_0.\(format)?v=\(version)") }
            }
            for path in paths {
                let reply = try gallery.get(path, headers: admin)
                guard reply.status == 200, reply.body.count > 96 else { continue }
                answered += 1
                for start in stride(from: 64, to: reply.body.count - 32, by: 32) { runs.insert(Array(reply.body[start..<start + 32])) }
            }
        }
        // The premise: the reference is the images' real answers, many of them.
        #expect(answered >= 30 * ids.count, "only \(answered) reference answers")
        return runs
    }

    /// What no probe's answer may hold: an image, a run of the real pixels, a private image's id or words.
    ///
    /// `prefix` is the signed base the probe was sent under (its token names the images it opens: an answer
    /// that hands it back says nothing new); `valid` whether that token is valid (then the public routes answer
    /// as ever); `echo` the answer the same request gets for an id that does not exist, whose words it may repeat.
    ///
    /// IIIF Authorization Flow 2.0's routes answer in their own way: the probe always 200, with a result that must not
    /// say 200; the degraded tier (`degradedSize` > 0) an image no larger than that, and without it a 404. A 401
    /// may list the asked image's probe service, whose URLs repeat the id the request named (nothing else).
    static func check(_ reply: RawHTTP.Reply, _ probe: Probe, _ variant: String, prefix: String, valid: Bool, echo: RawHTTP.Reply?,
                      runs: Set<[UInt8]>, allowed: Set<Int>, degradedSize: Int = 0) {
        let label = "\(variant): \(probe.method) \(probe.path)"
        let bare = probe.path.split(separator: "?")[0]
        if probe.namesPrivate && bare.hasPrefix("/auth/probe/") && (prefix.isEmpty || valid) {
            #expect(reply.status == 200, "\(label) answered \(reply.status)")
            if probe.method != "HEAD" {
                #expect(reply.json?["type"] as? String == "AuthProbeResult2" && [401, 302].contains(reply.json?["status"] as? Int),
                        "\(label): \(reply.text.prefix(200))")
            }
        } else if probe.namesPrivate && bare.hasPrefix("/auth/degraded/") && (prefix.isEmpty || valid) {
            if degradedSize > 0 {
                #expect(reply.status == 200 || reply.status == 304, "\(label) answered \(reply.status)")
                if probe.method == "GET" && reply.status == 200, let image = try? DirectSourceTests.decoded(reply.body) {
                    #expect(max(image.width, image.height) <= degradedSize, "\(label) is \(image.width)x\(image.height)")
                }
                return
            }
            #expect(reply.status == 404, "\(label) answered \(reply.status)")
        } else if probe.namesPrivate {
            #expect(allowed.contains(reply.status), "\(label) answered \(reply.status): \(reply.text.prefix(200))")
            if probe.method != "HEAD" {
                #expect(reply.header("content-type")?.hasPrefix("application/json") == true && reply.json?["error"] != nil, "\(label)")
            }
        } else if !prefix.isEmpty && !valid {
            #expect(reply.status == 401, "\(label) answered \(reply.status) under a bad signed URL")
        }
        #expect(!isImage(reply.body), "\(label) answered an image")
        // What an unknown id gets, word for word, tells nothing: the private id's echo of the request is that.
        if let echo, echo.status == reply.status,
           echo.text.replacingOccurrences(of: Self.unknownID, with: "ID") == reply.text.replacingOccurrences(of: probe.id, with: "ID") {
            return
        }
        let text = (reply.text + " " + reply.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            .replacingOccurrences(of: prefix.isEmpty ? "\u{0}" : prefix, with: "/signed/-")
            .replacingOccurrences(of: "/auth/probe/\(probe.id)\"", with: "/auth/probe/ID\"")
            .replacingOccurrences(of: "/auth/degraded/\(probe.id).jpeg\"", with: "/auth/degraded/ID.jpeg\"").lowercased()
        for word in PrivateGallery.privateWords where text.contains(word.lowercased()) {
            Issue.record("\(label) names '\(word)': \(reply.text.prefix(300))")
        }
        if reply.body.count >= 96 {
            for start in 0...(reply.body.count - 32) where runs.contains(Array(reply.body[start..<start + 32])) {
                Issue.record("\(label) holds 32 bytes of a private image's answer at \(start)")
                break
            }
        }
    }

    /// The signatures of the formats the server answers in (JPEG, PNG, GIF, TIFF, WebP, AVIF, JPEG 2000, JPEG XL).
    static func isImage(_ body: [UInt8]) -> Bool {
        let signatures: [[UInt8]] = [[0xFF, 0xD8], [0x89, 0x50, 0x4E, 0x47], Array("GIF8".utf8), [0x49, 0x49, 0x2A, 0], [0x4D, 0x4D, 0, 0x2A],
                                     Array("RIFF".utf8), [0xFF, 0x4F, 0xFF, 0x51], [0, 0, 0, 0x0C, 0x6A, 0x50], [0xFF, 0x0A],
                                     [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]]
        if signatures.contains(where: { body.starts(with: $0) }) { return true }
        return body.count >= 12 && Array(body[4..<8]) == Array("ftyp".utf8)  // AVIF, HEIF
    }

    @Test func noAnswerWithoutAValidCredentialLeaksAPrivateImage() throws {
        let gallery = try PrivateGallery("access-leak-probe")
        let port = gallery.port
        // Minted first, so they expire while the rest is prepared; the replayed one is used while valid.
        let expired = try gallery.token("qsecret", seconds: 1, images: ["qhidden"])
        let replayed = try gallery.token("qsecret", seconds: 25, images: ["qhidden"])
        let runs = try Self.pixelRuns(gallery, ids: ["qsecret", "qhidden"])
        let probes = try ["qsecret", "qhidden"].flatMap { try Self.probes(id: $0, version: try gallery.version($0)) }
        #expect(probes.count > 600, "only \(probes.count) probes")
        #expect(Set(probes.map { $0.path.split(separator: "?")[0].split(separator: "/").first ?? "" }).count >= 6)

        // While valid, the replayed token opens them: the premise of the replay (and its tiles go hot).
        var opened = 0
        let hotBefore = try gallery.metric("tilescope_hot_tiles_answered")
        for probe in probes where probe.namesPrivate && probe.method == "GET" {
            for _ in 0..<2 where try Self.send(port, probe, prefix: "/signed/\(replayed)").status == 200 { opened += 1 }
        }
        #expect(opened > 200, "the valid token opened only \(opened) answers")
        #expect(try gallery.metric("tilescope_hot_tiles_answered") > hotBefore + 20, "the premise: signed tiles were kept hot")

        let other = try gallery.token("qother"), open = try gallery.token("open")
        let forgedTag = String(replayed.dropLast(1)) + (replayed.hasSuffix("0") ? "1" : "0")
        let fields = replayed.split(separator: ".")
        let forgedKey = SignedToken(keyID: Int(fields[0])!, expires: Int(Date().timeIntervalSince1970) + 3600, ids: ["qsecret", "qhidden"])
            .text(signedWith: .random(id: Int(fields[0])!))
        let variants: [(String, String, Bool, Set<Int>)] = [
            ("none", "", true, [401]), ("another image's token", "/signed/\(other)", true, [401, 403]),
            ("a public image's token", "/signed/\(open)", true, [401, 403]), ("a forged tag", "/signed/\(forgedTag)", false, [401]),
            ("a forger's key", "/signed/\(forgedKey)", false, [401]),
        ]
        func probeAll(_ variant: String, _ prefix: String, valid: Bool, _ allowed: Set<Int>) throws {
            for probe in probes {
                let echo = probe.path.contains(probe.id) ? try Self.send(port, probe.aboutUnknown, prefix: prefix) : nil
                Self.check(try Self.send(port, probe, prefix: prefix), probe, variant, prefix: prefix, valid: valid, echo: echo,
                           runs: runs, allowed: allowed)
            }
        }
        for (variant, prefix, valid, allowed) in variants { try probeAll(variant, prefix, valid: valid, allowed) }
        try PrivateGallery.waitUntilExpired(expired)
        try PrivateGallery.waitUntilExpired(replayed)
        for (variant, token) in [("expired", expired), ("replayed after expiry", replayed)] {
            try probeAll(variant, "/signed/\(token)", valid: false, [401])
        }
        // Nothing of them in the metrics either, after all that.
        let metrics = try gallery.get("/metrics").text.lowercased()
        for word in PrivateGallery.privateWords { #expect(!metrics.contains(word.lowercased()), "/metrics names \(word)") }
    }

    /// The same probe against a server where people sign in (a users file, a trusted proxy's header, a degraded
    /// tier): without a credential, with a forged session cookie, a signed-out session's cookie, a IIIF access
    /// token (it opens the probe, never the image), a forged one, and the header from a peer that is no trusted
    /// proxy. Every 401 lists the probe service, whose URLs repeat only the id asked about.
    @Test func noAnswerWithoutAValidSessionLeaksAPrivateImage() throws {
        let users = try TestScratch.folder("access-leak-users") + "/users"
        let hash = try #require(UserPasswords.yescrypt("leak probe password"))
        try Data("ann:viewer:\(hash)\n".utf8).write(to: URL(fileURLWithPath: users))
        let degraded = 48
        let gallery = try PrivateGallery("access-leak-sessions") {
            $0.usersFile = users
            $0.authHeader = "X-Remote-User"
            $0.trustedProxies = "10.9.8.7"
            $0.privatePreviewSize = degraded
        }
        let port = gallery.port
        let runs = try Self.pixelRuns(gallery, ids: ["qsecret", "qhidden"])
        let probes = try ["qsecret", "qhidden"].flatMap { try Self.probes(id: $0, version: try gallery.version($0)) }
        #expect(probes.contains { $0.path.hasPrefix("/auth/probe/") } && probes.contains { $0.path.hasPrefix("/auth/degraded/") })

        // Real sessions and their access tokens, over HTTP as a browser gets them; then one session signed out:
        // its cookie and token are dead.
        func signIn() throws -> (cookie: String, csrf: String, token: String) {
            let page = try gallery.get("/auth/login")
            let login = try #require(AccountsServer.cookie("tilescope_login", in: page))
            let reply = try RawHTTP(port: port).send("POST", "/auth/login", headers: [
                "Cookie": "tilescope_login=\(login)", "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
            ], body: Array("name=ann&password=leak+probe+password&csrf=\(login)".utf8))
            let cookie = try #require(AccountsServer.cookie("tilescope_session", in: reply), "\(reply.text)")
            let csrf = try #require(reply.json?["csrf"] as? String)
            let page2 = try gallery.get("/auth/token?messageId=t&origin=http://127.0.0.1", headers: ["Cookie": "tilescope_session=\(cookie)"])
            return (cookie, csrf, try #require(AccountsEndToEndTests.token(in: page2.text)))
        }
        let dead = try signIn(), live = try signIn()
        let secret = dead.cookie, token = dead.token, liveToken = live.token
        #expect(try Self.send(port, Probe(path: "/dzi/qsecret.dzi", namesPrivate: true),
                              prefix: "", extra: ["Cookie": "tilescope_session=\(secret)"]).status == 200)  // the premise
        let out = try RawHTTP(port: port).send("POST", "/auth/logout", headers: ["Cookie": "tilescope_session=\(secret)", "X-CSRF-Token": dead.csrf])
        #expect(out.status == 200)
        let forgedToken = String(liveToken.dropLast(1)) + (liveToken.hasSuffix("0") ? "1" : "0")
        let variants: [(String, [String: String])] = [
            ("none", [:]), ("a forged session cookie", ["Cookie": "tilescope_session=\(String(repeating: "ab", count: 32))"]),
            ("a signed-out session's cookie", ["Cookie": "tilescope_session=\(secret)"]),
            ("a signed-out session's access token", ["Authorization": "Bearer \(token)"]),
            ("a live access token (the probe's, not the image's)", ["Authorization": "Bearer \(liveToken)"]),
            ("a forged access token", ["Authorization": "Bearer \(forgedToken)"]),
            ("the trusted header from a peer that is no proxy", ["X-Remote-User": "ann"]),
            ("a viewer cookie", ["Cookie": "tilescope_viewer=\(String(repeating: "1", count: 32)).\(String(repeating: "2", count: 64))"]),
        ]
        for (variant, headers) in variants {
            for probe in probes {
                let echo = probe.path.contains(probe.id) ? try Self.send(port, probe.aboutUnknown, prefix: "", extra: headers) : nil
                let reply = try Self.send(port, probe, prefix: "", extra: headers)
                // The live token opens the probe (that is its purpose): its result may say 200 there, nowhere else.
                if variant.hasPrefix("a live"), probe.path.hasPrefix("/auth/probe/") { continue }
                Self.check(reply, probe, variant, prefix: "", valid: true, echo: echo, runs: runs, allowed: [401], degradedSize: degraded)
                if reply.status == 401, probe.namesPrivate, probe.method != "HEAD" {
                    let service = (reply.json?["service"] as? [[String: Any]])?.first
                    #expect(service?["id"] as? String == "http://127.0.0.1/auth/probe/\(probe.id)", "\(variant): \(probe.method) \(probe.path)")
                }
            }
        }
    }
}
