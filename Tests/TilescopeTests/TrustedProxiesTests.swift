import HTTPServer
import Testing
@testable import Tilescope

/// Whose budget a request spends: the peer, unless the peer is a trusted proxy, and then the last address in
/// `X-Forwarded-For` no trusted proxy added.
@Suite struct TrustedProxiesTests {
    func request(from peer: String, forwardedFor: String? = nil) -> Request {
        var request = Request(method: "GET", rawPath: "/", headers: forwardedFor.map { ["x-forwarded-for": $0] } ?? [:])
        request.client = ClientAddress(parsing: Substring(peer))!
        return request
    }

    @Test func blocksMatchByTheirPrefix() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 192.168.1.7 ::1,2001:db8::/32")
        #expect(proxies.trusts(ClientAddress(parsing: "10.255.0.1")!))
        #expect(!proxies.trusts(ClientAddress(parsing: "11.0.0.1")!))
        #expect(proxies.trusts(ClientAddress(parsing: "192.168.1.7")!))
        #expect(!proxies.trusts(ClientAddress(parsing: "192.168.1.8")!))
        #expect(proxies.trusts(ClientAddress(parsing: "::1")!))
        #expect(proxies.trusts(ClientAddress(parsing: "2001:db8:ffff::1")!))
        #expect(!proxies.trusts(ClientAddress(parsing: "2001:db9::1")!))
        #expect(!proxies.trusts(ClientAddress("10.0.0.1")), "an address known only as text is never trusted")
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").trusts(ClientAddress(parsing: "203.0.113.9")!))
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0.0/-1", "10.0.0/8", "example.org", "::1/129", "1.2.3.4/", "1.2.3.4/0008"])
    func badListsAreRefusedWithTheirItem(text: String) {
        #expect(throws: TrustedProxiesError.self) { try TrustedProxies(parsing: text) }
    }

    @Test func onlyATrustedPeerMayNameAnotherClient() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8")
        // Not from a proxy: the header is anyone's to send, and ignored.
        #expect(proxies.client(of: request(from: "203.0.113.5", forwardedFor: "198.51.100.1")).text == "203.0.113.5")
        // From the proxy: the address it heard from.
        #expect(proxies.client(of: request(from: "127.0.0.1", forwardedFor: "198.51.100.1")).text == "198.51.100.1")
        // Through two trusted proxies: the first untrusted address from the right; what the client itself wrote
        // on the left is not believed.
        #expect(proxies.client(of: request(from: "127.0.0.1", forwardedFor: "1.1.1.1, 198.51.100.2, 10.1.2.3")).text
                == "198.51.100.2")
        // A proxy without the header, or with garbage in it, spends its own budget, never an invented one.
        #expect(proxies.client(of: request(from: "127.0.0.1")).text == "127.0.0.1")
        #expect(proxies.client(of: request(from: "127.0.0.1", forwardedFor: "not-an-address")).text == "127.0.0.1")
        #expect(TrustedProxies.none.client(of: request(from: "127.0.0.1", forwardedFor: "198.51.100.1")).text == "127.0.0.1")
    }
}
