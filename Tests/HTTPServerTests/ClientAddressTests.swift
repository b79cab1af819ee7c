import Testing
@testable import HTTPServer

/// The client address kept as bytes prints as `inet_ntop` does, only when read.
@Suite struct ClientAddressTests {
    static func address(_ bytes: [UInt8]) -> ClientAddress {
        var packed = SIMD16<UInt8>()
        for (index, byte) in bytes.enumerated() { packed[index] = byte }
        return ClientAddress(networkBytes: packed, length: bytes.count)
    }

    @Test func printsIPv4AndIPv6() {
        #expect(Self.address([127, 0, 0, 1]).text == "127.0.0.1")
        #expect(Self.address([10, 255, 0, 200]).text == "10.255.0.200")
        #expect(Self.address([UInt8](repeating: 0, count: 15) + [1]).text == "::1")
        #expect(Self.address([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [0x2a]).text == "2001:db8::2a")
        #expect(Self.address([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7]).text == "::ffff:192.0.2.7")
    }

    @Test func anUnknownAddressIsADash() {
        #expect(Self.address([]).text == "-")
        #expect(Self.address([1, 2, 3]).text == "-")
        #expect(ClientAddress("10.1.2.3").text == "10.1.2.3")
    }

    @Test func requestsKeepTheTextTheyWereGiven() {
        #expect(Request(method: "GET", rawPath: "/", clientAddress: "192.0.2.1").clientAddress == "192.0.2.1")
        #expect(Request(method: "GET", rawPath: "/", query: [:], headers: [:],
                        client: Self.address([192, 0, 2, 9])).clientAddress == "192.0.2.9")
    }
}
