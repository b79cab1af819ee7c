import HTTPServer

/// `GET /healthz`, `GET /readyz` and `GET /metrics`: cheap, uncached, never behind a build.
extension TilescopeApp {
    /// Alive: the process answers HTTP. Says nothing about its dependencies (that is /readyz),
    /// so an orchestrator does not restart a process that only waits for its disk.
    func health(_ request: Request) -> Response {
        JSON.response(["status": "ok"])
    }

    /// Ready for traffic: every readiness check passes; 503 naming the failed ones otherwise.
    func readiness(_ request: Request) -> Response {
        let results = operations.readiness.evaluate()
        let checks = results.map { ReadinessJSON.Check(name: $0.name, ok: $0.ok, reason: $0.failure) }
        let failures = results.filter { !$0.ok }
        guard failures.isEmpty else {
            let message = failures.map { "\($0.name): \($0.failure!)" }.joined(separator: "; ")
            var response = JSON.response(ReadinessJSON(status: "not_ready", error: "not_ready", message: message,
                                                       checks: checks), status: 503)
            response.setHeader("Retry-After", "5")
            return response
        }
        return JSON.response(ReadinessJSON(status: "ready", error: nil, message: nil, checks: checks))
    }

    func metricsExposition(_ request: Request) -> Response {
        Response(status: 200, headers: [("Content-Type", PrometheusText.contentType), ("Cache-Control", "no-store")],
                 body: .bytes(Array(operations.metrics.render().utf8)))
    }
}

/// The body of `/readyz`: a summary, and each check by name. When not ready it also has
/// the `error` and `message` every Tilescope error carries.
struct ReadinessJSON: Encodable {
    struct Check: Encodable {
        var name: String
        var ok: Bool
        var reason: String?
    }

    var status: String
    var error: String?
    var message: String?
    var checks: [Check]
}
