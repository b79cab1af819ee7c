import Foundation
import HTTPServer
import TestSupport
import Testing
@testable import Tilescope

/// `/healthz`, `/readyz` and `/metrics` on a real server over loopback.
@Suite(.serialized) struct OpsEndpointTests {
    static func server(_ label: String) throws -> TestServer {
        let server = try TestServer(label: label) { folder in
            try TestImages.writePNG(width: 600, height: 400, to: folder + "/photo.png")
        }
        try server.waitUntilBuilt()
        return server
    }

    @Test func healthzSaysOkAndIsNeverCached() throws {
        let server = try Self.server("ops-health")
        let reply = try server.get("/healthz")
        #expect(reply.status == 200)
        #expect(reply.json?["status"] as? String == "ok")
        #expect(reply.header("cache-control") == "no-store")
        #expect(try RawHTTP(port: server.port).send("HEAD", "/healthz").status == 200)
        let post = try RawHTTP(port: server.port).send("POST", "/healthz")
        #expect(post.status == 405)
        // Only the exact path: /healthz/x is a static-file lookup (404), not health.
        #expect(try server.get("/healthz/x").status == 404)
    }

    @Test func readyzListsEveryCheckByName() throws {
        let server = try Self.server("ops-ready")
        let reply = try server.get("/readyz")
        #expect(reply.status == 200)
        let json = try #require(reply.json)
        #expect(json["status"] as? String == "ready")
        let checks = try #require(json["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == ["accepting", "library", "data_folder_writable", "pyramid_store"])
        #expect(checks.allSatisfy { $0["ok"] as? Bool == true })
        // The probe file is gone again.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: server.data).filter { $0.hasPrefix(".readyz") }
        #expect(leftovers.isEmpty)
    }

    @Test func readyzIs503WithTheReasonWhenTheDataFolderIsGone() throws {
        let server = try Self.server("ops-notready")
        // Tests run as root, so chmod cannot make the folder unwritable: move it away instead.
        #expect(rename(server.data, server.data + ".away") == 0)
        let reply = try server.get("/readyz")
        #expect(reply.status == 503)
        #expect(reply.header("retry-after") == "5")
        let json = try #require(reply.json)
        #expect(json["error"] as? String == "not_ready")
        let message = try #require(json["message"] as? String)
        #expect(message.contains("data_folder_writable: cannot create a file in \(server.data)"))
        #expect(message.contains("pyramid_store: \(server.data)/pyramids is missing"))
        #expect(!message.contains("accepting"))
        // Liveness does not depend on the disk.
        #expect(try server.get("/healthz").status == 200)
        #expect(rename(server.data + ".away", server.data) == 0)
        // The folder probe runs at most once a second: readiness comes back within that.
        let end = Date().addingTimeInterval(10)
        var status = 0
        repeat {
            status = try server.get("/readyz").status
            if status != 200 { Thread.sleep(forTimeInterval: 0.1) }
        } while status != 200 && Date() < end
        #expect(status == 200)
    }

    @Test func featuresCanAddReadinessChecks() throws {
        let server = try Self.server("ops-extend")
        let open = LockedFlag(true)
        server.service.operations.readiness.add(Readiness.Check("catalog") { open.value ? nil : "the database is closed" })
        #expect(try server.get("/readyz").status == 200)
        open.value = false
        let reply = try server.get("/readyz")
        #expect(reply.status == 503)
        #expect(reply.json?["message"] as? String == "catalog: the database is closed")
        let checks = try #require(reply.json?["checks"] as? [[String: Any]])
        #expect(checks.last?["name"] as? String == "catalog")
        #expect(checks.last?["reason"] as? String == "the database is closed")
    }

    @Test func readyzFailsOnceShutdownBegins() throws {
        let server = try Self.server("ops-stopping")
        server.service.operations.readiness.markStopping()
        let reply = try server.get("/readyz")
        #expect(reply.status == 503)
        #expect((reply.json?["message"] as? String)?.hasPrefix("accepting: shutting down") == true)
    }

    @Test func metricsCountRequestsByRouteAndStatus() throws {
        let server = try Self.server("ops-metrics")
        let before = try Exposition(server.get("/metrics"))
        let tile = try server.get("/dzi/photo_files/10/0_0.jpeg")
        #expect(tile.status == 200)
        let etag = try #require(tile.header("etag"))
        #expect(try server.get("/dzi/photo_files/10/0_0.jpeg", headers: ["If-None-Match": etag]).status == 304)
        #expect(try server.get("/dzi/photo_files/10/0_1.jpeg", headers: ["If-None-Match": "\"other\""]).status == 200)
        // Fifty unknown ids: one series, not fifty.
        for index in 0..<50 { #expect(try server.get("/dzi/nope\(index)_files/0/0_0.jpeg").status == 404) }
        #expect(try server.get("/api/nothing/here").status == 404)
        #expect(try server.get("/healthz").status == 200)
        let second = try server.get("/dzi/photo_files/10/0_1.jpeg")
        // HEAD sends no tile: counted as a request, never as a tile served.
        #expect(try RawHTTP(port: server.port).send("HEAD", "/dzi/photo_files/10/0_0.jpeg").status == 200)

        // A request is counted when libmicrohttpd reports it complete, which can follow the reply the
        // client already read: wait until the last one (the second tile) is in before comparing.
        var after = try Exposition(server.get("/metrics"))
        let deadline = Date().addingTimeInterval(10)
        while after["tilescope_http_requests_total", #"route="dzi_tile",code="200""#]
                - before["tilescope_http_requests_total", #"route="dzi_tile",code="200""#] < 4 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            after = try Exposition(server.get("/metrics"))
        }
        func delta(_ name: String, _ labels: String) -> Double { after[name, labels] - before[name, labels] }
        #expect(delta("tilescope_http_requests_total", #"route="dzi_tile",code="200""#) == 4)
        #expect(delta("tilescope_http_requests_total", #"route="dzi_tile",code="304""#) == 1)
        #expect(delta("tilescope_http_requests_total", #"route="dzi_tile",code="404""#) == 50)
        #expect(delta("tilescope_http_requests_total", #"route="unmatched",code="404""#) == 1)
        #expect(delta("tilescope_http_requests_total", #"route="healthz",code="200""#) == 1)
        #expect(delta("tilescope_tiles_served_total", "") == 3)
        #expect(delta("tilescope_cache_hits_total", #"cache="http_revalidation""#) == 1)
        #expect(delta("tilescope_cache_misses_total", #"cache="http_revalidation""#) == 1)
        #expect(after.series.keys.filter { $0.hasPrefix("tilescope_http_requests_total{route=\"dzi_tile\"") }.count == 3)
        #expect(!after.text.contains("nope"))
        // The 404s' JSON bodies count too; the 304 sent no body.
        let tileBytes = delta("tilescope_http_response_bytes_total", #"route="dzi_tile""#)
        #expect(tileBytes > Double(tile.body.count + second.body.count * 2))
        #expect(delta("tilescope_http_request_duration_seconds_count", #"route="dzi_tile""#) == 55)
        #expect(after["tilescope_pyramid_builds_total", #"outcome="built""#] == 1)
        #expect(after["tilescope_pyramid_build_duration_seconds_count", #"outcome="built""#] == 1)
        #expect(after["tilescope_pyramid_builds_queued", ""] == 0)
        #expect(after["tilescope_images", #"status="ready""#] == 1)
        // This very scrape is in flight on an open connection.
        #expect(after["tilescope_http_open_connections", ""] >= 1)
        #expect(after["tilescope_http_requests_in_flight", ""] >= 1)
    }

    /// A request whose client leaves before any response (here mid-body) is counted as 499, nginx's "client
    /// closed request", never under a code that is no number.
    @Test func aRequestLeftBeforeItsResponseIsCountedAs499() throws {
        let server = try Self.server("ops-metrics-closed")
        var exposition = try Exposition(server.get("/metrics"))
        let deadline = Date().addingTimeInterval(10)
        do {  // the connection closes as `client` goes, seven bytes short of its body
            let client = try RawHTTP(port: server.port)
            #expect(client.write(Array("GET /dzi/photo_files/10/0_0.jpeg HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc".utf8)))
            // Closed only once the server has the request in hand (in flight beside the scrape itself).
            while exposition["tilescope_http_requests_in_flight", ""] < 2 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
                exposition = try Exposition(server.get("/metrics"))
            }
            #expect(exposition["tilescope_http_requests_in_flight", ""] >= 2)
        }
        while exposition["tilescope_http_requests_total", #"route="dzi_tile",code="499""#] < 1 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            exposition = try Exposition(server.get("/metrics"))
        }
        #expect(exposition["tilescope_http_requests_total", #"route="dzi_tile",code="499""#] == 1)
        #expect(!exposition.text.contains(#"code="none""#))
    }

    @Test func metricsAreWellFormedPrometheusText() throws {
        let server = try Self.server("ops-format")
        _ = try server.get("/dzi/photo_files/10/0_0.jpeg")
        _ = try server.get("/missing.js")
        let reply = try server.get("/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("content-type") == "text/plain; version=0.0.4; charset=utf-8")
        let exposition = try Exposition(reply)
        // Every sample belongs to a family announced with HELP and TYPE before it.
        for name in exposition.sampleNames {
            let family = exposition.family(of: name)
            #expect(exposition.types[family] != nil, "no TYPE for \(name)")
            #expect(exposition.helps.contains(family), "no HELP for \(name)")
        }
        for (family, type) in exposition.types where type == "counter" { #expect(family.hasSuffix("_total")) }
        // Histograms: cumulative buckets that never decrease, +Inf equal to _count.
        for (family, type) in exposition.types where type == "histogram" {
            for labels in exposition.labelSets(of: family + "_count") {
                let buckets = exposition.buckets(family, labels)
                #expect(!buckets.isEmpty)
                #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.1.count >= $0.0.count })
                #expect(buckets.last?.bound == "+Inf")
                #expect(buckets.last?.count == exposition[family + "_count", labels])
            }
        }
    }

    @Test func cacheCountersAreSharedByName() throws {
        let metrics = Metrics()
        let tiles = metrics.cache("tiles")
        #expect(metrics.cache("tiles") === tiles)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { tiles.hit() }
            tiles.miss()
        }
        #expect(tiles.hitCount == 80_000)
        #expect(tiles.missCount == 8)
        #expect(metrics.render().contains("tilescope_cache_hits_total{cache=\"tiles\"} 80000\n"))
    }

    @Test func concurrentRecordingLosesNoCount() {
        let metrics = Metrics()
        let route = Endpoint.tileRoute
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for index in 0..<25_000 {
                metrics.record(route: route, status: index % 2 == 0 ? 200 : 304, bytes: 10, seconds: 0.0003,
                               completedNormally: true)
            }
        }
        #expect(metrics.requestCount(route: "dzi_tile", status: 200) == 50_000)
        #expect(metrics.requestCount(route: "dzi_tile", status: 304) == 50_000)
        let text = metrics.render()
        #expect(text.contains("tilescope_http_response_bytes_total{route=\"dzi_tile\"} 1000000\n"))
        #expect(text.contains("tilescope_http_request_duration_seconds_bucket{route=\"dzi_tile\",le=\"0.0005\"} 100000\n"))
        #expect(text.contains("tilescope_tiles_served_total 50000\n"))
    }

    @Test func routeClassifierAgreesWithTheRouter() throws {
        let paths = [
            "/api/images", "/api/images/a%20b", "/api/images/x/viewport", "/api/images/x/rating", "/api/images/x/signed-urls", "/api/gallery", "/api/jobs/j1",
            "/dzi/x.dzi", "/dzi/x_files/3/1_2.jpeg", "/images/x/between/3/1/1_2.avif", "/images/x/preview.jpeg", "/images/x/preview.avif", "/", "/app.js", "/healthz", "/readyz",
            "/metrics", "/iiif/3/x", "/iiif/3/x/info.json", "/iiif/3/x/full/max/0/default.jpg", "/openapi.json",
            "/iiif/2/x", "/iiif/2/x/info.json", "/iiif/2/x/full/full/0/default.jpg", "/iiif/presentation/x/manifest.json",
            "/iiif/presentation/gallery/manifest.json", "/iiif/presentation/collection.json",
            "/iiif/presentation/image/x/manifest.json", "/api/session", "/auth/login", "/auth/logout", "/auth/token",
            "/auth/external", "/auth/probe/x", "/auth/degraded/x.jpeg",
        ]
        var seen = Set<Int>()
        for path in paths {
            let request = Request(method: "GET", rawPath: path)
            let parsed = try Endpoint.parse(try #require(request.pathSegments))
            #expect(Endpoint.routeIndex(of: request) == parsed.routeIndex, "\(path)")
            seen.insert(parsed.routeIndex)
        }
        #expect(seen.count == Endpoint.routeNames.count - 1, "one path per route")
        // A signed URL counts under the route it opens, never under its token.
        #expect(Endpoint.routeIndex(of: Request(method: "GET", rawPath: "/signed/1.2.x.ab/dzi/x_files/3/1_2.jpeg")) == Endpoint.tileRoute)
        // Shapes the router refuses keep their family, or are unmatched.
        #expect(Endpoint.routeIndex(of: Request(method: "GET", rawPath: "/dzi/x_files/a/1_2.jpeg")) == Endpoint.tileRoute)
        for path in ["/api/nope", "/dzi/x", "/images/x", "/images/x/preview.webp", "/api/images/x/y", "/iiif/4/x/info.json", "/iiif/3/x/y",
                     "/iiif/presentation/x", "/iiif/presentation/x/y.json", "/iiif/presentation//manifest.json",
                     "/auth/nope", "/auth/probe/", "/auth/degraded/x.png"] {
            #expect(Endpoint.routeIndex(of: Request(method: "GET", rawPath: path)) == Endpoint.unmatchedRoute, "\(path)")
        }
    }

    @Test func labelValuesAreEscaped() {
        var text = PrometheusText()
        text.sample("x", [("a", "say \"hi\"\\\n")], 1)
        #expect(text.text == "x{a=\"say \\\"hi\\\"\\\\\\n\"} 1\n")
        #expect(PrometheusText.format(0.0005) == "0.0005")
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(.infinity) == "+Inf")
    }
}

/// A Bool shared with a check closure.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Bool
    init(_ value: Bool) { stored = value }
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A parsed Prometheus text exposition: samples by `name{labels}`, and the HELP and TYPE lines.
struct Exposition {
    let text: String
    var series: [String: Double] = [:]
    var sampleNames: [String] = []
    var types: [String: String] = [:]
    var helps: Set<String> = []

    init(_ reply: RawHTTP.Reply) throws {
        text = reply.text
        // name{label="value",...} value  — label values may hold escaped quotes.
        let sample = try Regex(#"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (\S+)$"#)
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                helps.insert(String(line.split(separator: " ")[2]))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                types[String(parts[2])] = String(parts[3])
            } else {
                guard line.wholeMatch(of: sample) != nil else { throw TestFailure("not a sample line: \(line)") }
                let space = line.lastIndex(of: " ")!
                let key = String(line[..<space])
                guard series[key] == nil else { throw TestFailure("duplicate series \(key)") }
                let valueText = line[line.index(after: space)...]
                series[key] = valueText == "+Inf" ? .infinity : Double(valueText)
                sampleNames.append(String(key.prefix { $0 != "{" }))
            }
        }
    }

    subscript(name: String, labels: String) -> Double {
        series[labels.isEmpty ? name : "\(name){\(labels)}"] ?? 0
    }

    func family(of name: String) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" { return base }
        }
        return name
    }

    func labelSets(of name: String) -> [String] {
        series.keys.filter { $0.hasPrefix(name + "{") }.map { String($0.dropFirst(name.count + 1).dropLast()) }
    }

    func buckets(_ family: String, _ labels: String) -> [(bound: String, count: Double)] {
        text.split(separator: "\n").compactMap { line -> (String, Double)? in
            let prefix = "\(family)_bucket{\(labels),le=\""
            guard line.hasPrefix(prefix) else { return nil }
            let rest = line.dropFirst(prefix.count)
            let bound = String(rest.prefix { $0 != "\"" })
            return (bound, Double(line.split(separator: " ").last!)!)
        }
    }
}
