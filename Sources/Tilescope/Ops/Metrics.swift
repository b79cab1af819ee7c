import Foundation
import HTTPServer

/// The process's Prometheus metrics: HTTP traffic counted per request without locks,
/// pyramid builds, caches that features register, and gauges read at scrape time.
public final class Metrics: @unchecked Sendable {
    /// Status codes 100...599 index their own slot.
    static let statusSlots = 600
    /// The code counted for a request that ended before any response was sent (its client went away
    /// mid-body, say): nginx's "client closed request", so dashboards that know it read it right.
    static let clientClosedRequest = 499
    static let buildOutcomes = ["built", "failed", "discarded"]

    private let routes = Endpoint.routeNames.count
    private let requests: AtomicCounters
    private let aborted: AtomicCounters
    private let sentBytes: AtomicCounters
    private let latency: Histogram
    private let tiles = AtomicCounters(count: 1)
    private let builds = AtomicCounters(count: Metrics.buildOutcomes.count)
    private let buildDurations = Histogram(bounds: Histogram.buildBounds, series: Metrics.buildOutcomes.count)
    /// Costly work (renders, encodings): its wait in the fair queue, by tier (within budget, over).
    private let renderWaits = Histogram(bounds: Histogram.requestBounds, series: 2)
    private let startTime = Date().timeIntervalSince1970

    /// Registration is rare (at start-up) and takes the lock; counting never does.
    private let lock = NSLock()
    private var caches: [CacheCounter] = []
    private var gauges: [Gauge] = []

    public init() {
        requests = AtomicCounters(count: routes * Self.statusSlots)
        aborted = AtomicCounters(count: routes)
        sentBytes = AtomicCounters(count: routes)
        latency = Histogram(bounds: Histogram.requestBounds, series: routes)
    }

    // MARK: - Counting (hot path)

    /// One finished HTTP exchange on route `route` (an index into `Endpoint.routeNames`).
    func record(route: Int, status: Int, bytes: Int, seconds: Double, completedNormally: Bool, isHead: Bool = false) {
        let slot = (100..<Self.statusSlots).contains(status) ? status : Self.clientClosedRequest
        requests.add(route * Self.statusSlots + slot)
        if bytes > 0 { sentBytes.add(route, bytes) }
        latency.observe(series: route, seconds: seconds)
        if !completedNormally { aborted.add(route) }
        if route == Endpoint.tileRoute && status == 200 && !isHead && completedNormally { tiles.add(0) }
    }

    /// Costly work started after waiting `seconds` in the fair queue.
    func recordRenderWait(seconds: Double) {
        renderWaits.observe(series: 0, seconds: seconds)
    }

    /// A pyramid build ended: `outcome` is one of `buildOutcomes`.
    public func recordBuild(outcome: String, seconds: Double) {
        guard let index = Self.buildOutcomes.firstIndex(of: outcome) else { return }
        builds.add(index)
        buildDurations.observe(series: index, seconds: seconds)
    }

    /// The counter of the cache called `name`, created on first use; the same one afterwards.
    public func cache(_ name: String) -> CacheCounter {
        lock.lock()
        defer { lock.unlock() }
        if let existing = caches.first(where: { $0.name == name }) { return existing }
        let counter = CacheCounter(name: name)
        caches.append(counter)
        return counter
    }

    /// Adds a gauge read at every scrape. Its name should start with `tilescope_`.
    public func register(_ gauge: Gauge) {
        lock.lock()
        defer { lock.unlock() }
        gauges.append(gauge)
    }

    // MARK: - Reading

    /// Requests counted on `route` with `status`, for tests and tools.
    func requestCount(route: String, status: Int) -> Int {
        guard let index = Endpoint.routeNames.firstIndex(of: route) else { return 0 }
        return requests[index * Self.statusSlots + status]
    }

    /// The whole exposition, in Prometheus text format.
    public func render() -> String {
        var out = PrometheusText()
        renderHTTP(&out)
        out.family("tilescope_tiles_served_total", "counter", "Deep Zoom tiles sent whole with status 200 (not HEAD).")
        out.sample("tilescope_tiles_served_total", [], tiles[0])
        renderBuilds(&out)
        out.family("tilescope_render_queue_wait_seconds", "histogram",
                   "Time costly work (IIIF renders, tile and preview encodings) waited in the fair queue for a render thread.")
        renderHistogram(renderWaits, series: 0, name: "tilescope_render_queue_wait_seconds", labels: [], &out,
                        evenIfEmpty: true)
        lock.lock()
        let (caches, gauges) = (self.caches, self.gauges)
        lock.unlock()
        renderCaches(caches, &out)
        for gauge in gauges {
            out.family(gauge.name, gauge.type, gauge.help)
            for sample in gauge.read() { out.sample(gauge.name, sample.labels, sample.value) }
        }
        out.family("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.")
        out.sample("process_start_time_seconds", [], startTime.rounded())
        return out.text
    }

    private func renderHTTP(_ out: inout PrometheusText) {
        out.family("tilescope_http_requests_total", "counter", "HTTP requests answered, by route and status code.")
        for route in 0..<routes {
            for slot in 0..<Self.statusSlots where requests[route * Self.statusSlots + slot] > 0 {
                out.sample("tilescope_http_requests_total",
                           [("route", Endpoint.routeNames[route]), ("code", String(slot))],
                           requests[route * Self.statusSlots + slot])
            }
        }
        out.family("tilescope_http_requests_aborted_total", "counter",
                   "HTTP requests whose client went away or timed out before the response was complete.")
        for route in 0..<routes where aborted[route] > 0 {
            out.sample("tilescope_http_requests_aborted_total", [("route", Endpoint.routeNames[route])], aborted[route])
        }
        out.family("tilescope_http_response_bytes_total", "counter", "Response body bytes sent, by route.")
        for route in 0..<routes where sentBytes[route] > 0 {
            out.sample("tilescope_http_response_bytes_total", [("route", Endpoint.routeNames[route])], sentBytes[route])
        }
        out.family("tilescope_http_request_duration_seconds", "histogram",
                   "Time from the request's headers to the end of its response, by route.")
        for route in 0..<routes {
            renderHistogram(latency, series: route, name: "tilescope_http_request_duration_seconds",
                            labels: [("route", Endpoint.routeNames[route])], &out)
        }
    }

    private func renderBuilds(_ out: inout PrometheusText) {
        out.family("tilescope_pyramid_builds_total", "counter",
                   "Pyramid builds finished, by outcome (discarded: the source changed while it was read).")
        for (index, outcome) in Self.buildOutcomes.enumerated() {
            out.sample("tilescope_pyramid_builds_total", [("outcome", outcome)], builds[index])
        }
        out.family("tilescope_pyramid_build_duration_seconds", "histogram", "Time to build one pyramid, by outcome.")
        for (index, outcome) in Self.buildOutcomes.enumerated() {
            renderHistogram(buildDurations, series: index, name: "tilescope_pyramid_build_duration_seconds",
                            labels: [("outcome", outcome)], &out, evenIfEmpty: true)
        }
    }

    private func renderCaches(_ caches: [CacheCounter], _ out: inout PrometheusText) {
        out.family("tilescope_cache_hits_total", "counter", "Cache lookups answered from the cache, by cache.")
        for cache in caches { out.sample("tilescope_cache_hits_total", [("cache", cache.name)], cache.hitCount) }
        out.family("tilescope_cache_misses_total", "counter", "Cache lookups the cache could not answer, by cache.")
        for cache in caches { out.sample("tilescope_cache_misses_total", [("cache", cache.name)], cache.missCount) }
    }

    /// `_bucket` lines with cumulative counts, then `_sum` and `_count` (= the +Inf bucket,
    /// so the three always agree even while requests are being counted).
    private func renderHistogram(_ histogram: Histogram, series: Int, name: String, labels: [(String, String)],
                                 _ out: inout PrometheusText, evenIfEmpty: Bool = false) {
        let (cumulative, sum) = histogram.snapshot(series: series)
        guard evenIfEmpty || cumulative.last! > 0 else { return }
        for (index, count) in cumulative.enumerated() {
            let bound = index < histogram.bounds.count ? PrometheusText.format(histogram.bounds[index]) : "+Inf"
            out.sample(name + "_bucket", labels + [("le", bound)], count)
        }
        out.sample(name + "_sum", labels, sum)
        out.sample(name + "_count", labels, cumulative.last!)
    }
}

extension Endpoint {
    static let tileRoute = Route.deepZoomTile.index
}
