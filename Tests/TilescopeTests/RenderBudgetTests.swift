import Foundation
import Synchronization
import TestSupport
import Testing
@testable import Tilescope

/// Budgets of costly work over real HTTP (issue 41): a client asking for more IIIF renders than its budget gets
/// 429 with `Retry-After` and a JSON reason, while stored tiles, descriptors and another client's renders are
/// answered; `/metrics` and `Server-Timing` show the queue.
@Suite struct RenderBudgetTests {
    static let server: TestServer = {
        let server = try! TestServer(label: "render-budget", configure: { config in
            // One render thread of each kind, and a budget of one million pixels a second: one client's second
            // large render is over budget, and at most one more of its renders may wait.
            config.workerThreads = 1
            config.renderBudgetMegapixels = 1
            config.renderBurstMegapixels = 1
            config.iiifCacheMegabytes = 0
        }) { folder in
            try TestImages.writePNG(width: 3000, height: 2000, to: folder + "/scene.png", seed: 5)
        }
        try! server.waitUntilBuilt()
        return server
    }()

    @Test func aGreedyClientIsRefusedWhatExceedsItsBudgetAndOthersAreServed() throws {
        let server = Self.server
        let port = server.port
        let statuses = Mutex<[Int]>([])
        let retryAfters = Mutex<[String]>([])
        let group = DispatchGroup()
        // Sixteen distinct large renders at once from 127.0.0.1: each costs several million pixels.
        for index in 0..<16 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let reply = try? RawHTTP(port: port).send("GET", "/iiif/3/scene/\(index * 10),0,2500,2000/1200,/0/default.jpg")
                else { return }
                statuses.withLock { $0.append(reply.status) }
                if reply.status == 429 {
                    retryAfters.withLock { $0.append(reply.header("retry-after") ?? "") }
                    #expect(reply.text.contains(#""error":"too_many_requests""#))
                    #expect(reply.header("content-type") == "application/json")
                }
            }.start()
        }
        // Meanwhile, answers from files are not costly work, and are never refused.
        let tile = try server.get("/dzi/scene_files/0/0_0.jpeg")
        #expect(tile.status == 200)
        #expect(try server.get("/iiif/3/scene/info.json").status == 200)
        // Another client is within its own budget.
        let other = try RawHTTP(port: port, from: "127.0.0.9").send("GET", "/iiif/3/scene/0,0,500,500/250,/0/default.jpg")
        #expect(other.status == 200)
        #expect(group.wait(timeout: .now() + 120) == .success)
        let sent = statuses.withLock { $0 }
        #expect(sent.count == 16)
        #expect(sent.allSatisfy { $0 == 200 || $0 == 429 }, "\(sent)")
        #expect(sent.contains(429) && sent.contains(200), "\(sent)")
        #expect(retryAfters.withLock { $0 }.allSatisfy { Int($0).map { (1...3600).contains($0) } == true })
        let metrics = try server.get("/metrics").text
        #expect(metrics.contains(#"tilescope_render_refused{tier="over_budget"}"#))
        #expect(metrics.contains("tilescope_render_queue_wait_seconds_count"))
    }

    @Test func aRenderSaysHowLongItWaited() throws {
        let reply = try RawHTTP(port: Self.server.port, from: "127.0.0.10")
            .send("GET", "/iiif/3/scene/100,100,300,300/150,/0/default.jpg")
        #expect(reply.status == 200)
        let timing = try #require(reply.header("server-timing"))
        #expect(timing.contains("queue;dur=") && timing.contains("render;dur="), "\(timing)")
    }
}
