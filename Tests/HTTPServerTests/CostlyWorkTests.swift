import Foundation
import Synchronization
import Testing
import TestSupport
@testable import HTTPServer

/// Costly work through a real server on a loopback port: a client over its budget gets 429 with `Retry-After`
/// once its over-budget work fills its share, answers from memory never wait, and another client's work
/// finds a normal thread free.
@Suite(.serialized) struct CostlyWorkTests {
    /// `?cost=N` is costly work of N pixels; `&gate=1` holds it on its thread until the test signals.
    struct CostlyHandler: HTTPHandler {
        static let gate = DispatchSemaphore(value: 0)
        static let entered = DispatchSemaphore(value: 0)
        /// How long any step may take on a loaded machine (a whole suite beside other work once outlasted the ten
        /// seconds the client's deficit used to last, and the test failed): every wait and budget below outlasts it.
        static let patience = 120.0

        func handle(_ request: Request) -> Reply {
            guard let cost = request.query["cost"].flatMap({ Int($0) }) else {
                return .now(Response(status: 200, body: .bytes(Array("cheap".utf8))))
            }
            let gated = request.query["gate"] != nil
            return .costly(CostlyWork(client: request.client, pixels: cost) {
                if gated {
                    CostlyHandler.entered.signal()
                    _ = CostlyHandler.gate.wait(timeout: .now() + Self.patience)
                }
                return Response(status: 200, body: .bytes(Array("made by \(request.client.text)".utf8)))
            })
        }
    }

    static func start() throws -> Server {
        var options = ServerOptions(host: "127.0.0.1", port: 0, pollThreads: 2, workerThreads: 2)
        // 100 pixels a second: the first request of 13,000 leaves its client 12,000 short, over budget for two
        // minutes (`patience`), however slowly the steps after it come; no job waits long enough to expire.
        options.costly = FairQueueLimits(pixelsPerSecond: 100, burstPixels: 1000, capacity: 16,
                                         overBudgetWaitingPerClient: 1, normalPerClient: 1,
                                         maxWaitSeconds: 10 * CostlyHandler.patience)
        let server = Server(options: options, handler: CostlyHandler())
        try server.start()
        return server
    }

    @Test func overBudgetWorkIsRefusedBeyondItsShareAndCheapAnswersNeverWait() throws {
        let server = try Self.start()
        defer { server.stop(deadline: 2) }
        let port = server.port
        let group = DispatchGroup()
        let statuses = Mutex<[Int]>([])
        func send(_ path: String, from source: String = "127.0.0.1") {
            group.enter()
            Thread {
                let status = (try? RawHTTP(port: port, from: source).send("GET", path))?.status ?? 0
                statuses.withLock { $0.append(status) }
                group.leave()
            }.start()
        }
        // Within budget: a normal thread. Then over budget: both spare threads, then one waiting (its share).
        let patience = CostlyHandler.patience
        send("/w?cost=13000&gate=1")
        #expect(CostlyHandler.entered.wait(timeout: .now() + patience) == .success)
        for _ in 0..<2 {
            send("/w?cost=10&gate=1")
            #expect(CostlyHandler.entered.wait(timeout: .now() + patience) == .success)
        }
        send("/w?cost=10&gate=1")
        try waitUntil { server.costlyCounts.waiting[1] == 1 }
        // Beyond its share: refused at once, with the seconds its bucket needs and a JSON reason.
        let refused = try RawHTTP.get(port, "/w?cost=10")
        #expect(refused.status == 429)
        // The seconds until its bucket is above zero: 12,000 short at 100 a second, less the time since.
        #expect(refused.header("retry-after").flatMap { Int($0) }.map { (1...121).contains($0) } == true)
        #expect(refused.header("content-type") == "application/json")
        #expect(refused.text.contains(#""error":"too_many_requests""#))
        // Answers from memory never wait behind costly work.
        #expect(try RawHTTP.get(port, "/cheap").text == "cheap")
        // Another client, within its budget, finds the second normal thread free while the first client holds
        // one normal and both spare threads.
        let other = try RawHTTP(port: port, from: "127.0.0.2").send("GET", "/o?cost=10")
        #expect(other.status == 200 && other.text == "made by 127.0.0.2")
        #expect(try #require(other.header("server-timing")).hasPrefix("queue;dur="))
        for _ in 0..<4 { CostlyHandler.gate.signal() }
        #expect(group.wait(timeout: .now() + patience) == .success)
        let sent = statuses.withLock { $0 }
        #expect(sent == [200, 200, 200, 200], "\(sent)")
        // A job is counted done after its answer is handed over, so the count may lag its client by a moment.
        try waitUntil { server.costlyCounts.done == [2, 3] }
        #expect(server.costlyCounts.refused == [0, 1])
    }

    private func waitUntil(_ condition: () -> Bool) throws {
        for _ in 0..<Int(CostlyHandler.patience * 100) where !condition() { usleep(10_000) }
        guard condition() else { throw TestFailure("timed out") }
    }
}
