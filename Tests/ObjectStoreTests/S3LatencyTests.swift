import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import ObjectStore
import TestSupport
import XCTest

/// Per-request latency of a GET on loopback, this module's client against URLSession, both signed
/// and on keep-alive connections: the measurement behind writing our own HTTP client
/// (docs/object-storage.md). It prints the medians and asserts no time (docs/testing.md: the machine is
/// noisy); it fails when an answer is wrong.
final class S3LatencyTests: XCTestCase {
    func testGetLatencyOnLoopback() throws {
        let client = try S3Store.freshClient()
        let rounds = 300
        for size in [4_096, 65_536] {
            let key = "latency/\(size)"
            let body = S3Store.binary(size, seed: UInt64(size))
            _ = try client.putObject(key, body: body)
            for _ in 0..<20 { _ = try client.getObject(key) }
            var ours: [Double] = []
            for _ in 0..<rounds {
                let started = Monotonic.now()
                let object = try client.getObject(key)
                ours.append(Monotonic.now() - started)
                XCTAssertEqual(object.body.count, size)
            }
            let session = try urlSessionTimes(client: client, key: key, size: size, rounds: rounds)
            let line = String(format: "GET %d B on loopback: ObjectStore client median %.3f ms (p90 %.3f), URLSession median %.3f ms (p90 %.3f), %d each",
                              size, median(ours) * 1000, percentile(ours, 0.9) * 1000, median(session) * 1000,
                              percentile(session, 0.9) * 1000, rounds)
            print(line)
        }
    }

    /// The same over TLS (this client only): what an https endpoint adds per request on a kept-alive connection.
    func testGetLatencyOverTLSOnLoopback() throws {
        let client = try S3Store.tlsClient(bucket: "latency-\(UInt64.random(in: 0...UInt64.max))")
        try client.createBucket()
        for size in [4_096, 65_536] {
            let key = "latency/\(size)"
            _ = try client.putObject(key, body: S3Store.binary(size, seed: UInt64(size)))
            for _ in 0..<20 { _ = try client.getObject(key) }
            var times: [Double] = []
            for _ in 0..<300 {
                let started = Monotonic.now()
                XCTAssertEqual(try client.getObject(key).body.count, size)
                times.append(Monotonic.now() - started)
            }
            print(String(format: "GET %d B over TLS on loopback: ObjectStore client median %.3f ms (p90 %.3f), 300", size,
                         median(times) * 1000, percentile(times, 0.9) * 1000))
        }
    }

    /// The same signed GETs through URLSession (libcurl underneath on Linux), one session, keep-alive.
    func urlSessionTimes(client: S3Client, key: String, size: Int, rounds: Int) throws -> [Double] {
        let settings = client.settings
        let signer = SigV4Signer(credentials: settings.credentials, region: settings.region)
        let session = URLSession(configuration: .ephemeral)
        var times: [Double] = []
        for round in 0..<(rounds + 20) {
            let path = settings.path(of: key)
            var signed = SigV4Request(method: "GET", path: path, headers: [("Host", settings.hostHeader)],
                                      payloadHash: SigV4Signer.emptyPayloadHash)
            signer.sign(&signed, at: SigV4Timestamp(Date()))
            var request = URLRequest(url: URL(string: "http://\(settings.hostHeader)\(SigV4Encoding.uriEncode(path, keepSlash: true))")!)
            for header in signed.headers where header.name != "Host" { request.setValue(header.value, forHTTPHeaderField: header.name) }
            let started = Monotonic.now()
            let done = DispatchSemaphore(value: 0)
            let result = Box()
            session.dataTask(with: request) { data, response, _ in
                result.set(data?.count ?? -1, (response as? HTTPURLResponse)?.statusCode ?? 0)
                done.signal()
            }.resume()
            done.wait()
            if round >= 20 { times.append(Monotonic.now() - started) }
            let (count, status) = result.get()
            XCTAssertEqual(status, 200)
            XCTAssertEqual(count, size)
        }
        session.invalidateAndCancel()
        return times
    }

    func median(_ values: [Double]) -> Double { percentile(values, 0.5) }
    func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

private final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var status = 0
    func set(_ count: Int, _ status: Int) { lock.withLock { self.count = count; self.status = status } }
    func get() -> (Int, Int) { lock.withLock { (count, status) } }
}
