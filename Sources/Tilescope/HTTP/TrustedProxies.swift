import HTTPServer

/// `--trusted-proxies`: the proxies in front of the server (address blocks such as `10.0.0.0/8`, `::1`), whose
/// `X-Forwarded-For` names the client a request's costly work is metered for (`FairQueue`). A request from any
/// other address is that address's own, whatever it claims: a header anyone can send must not let a client
/// spend another's budget, or spread its own over invented addresses.
public struct TrustedProxies: Sendable {
    struct Block: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var left = prefixLength
            for index in 0..<bytes.count where left > 0 {
                let bits = min(8, left)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != bytes[index] & mask { return false }
                left -= bits
            }
            return true
        }
    }

    let blocks: [Block]

    public static let none = TrustedProxies(blocks: [])

    init(blocks: [Block]) {
        self.blocks = blocks
    }

    /// Parses a comma- or space-separated list of addresses and blocks; throws a message naming the bad one.
    public init(parsing text: String) throws {
        var blocks: [Block] = []
        for item in text.split(whereSeparator: { $0 == "," || $0 == " " }) where !item.isEmpty {
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = ClientAddress(parsing: parts[0]), let bytes = address.networkBytes else {
                throw TrustedProxiesError(message: "\(item) is not an IP address or block (such as 10.0.0.0/8 or ::1)")
            }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard parts[1].utf8.count <= 3, let length = Int(parts[1]), (0...bytes.count * 8).contains(length) else {
                    throw TrustedProxiesError(message: "\(item): the prefix length must be 0 to \(bytes.count * 8)")
                }
                prefix = length
            }
            blocks.append(Block(bytes: bytes, prefixLength: prefix))
        }
        self.blocks = blocks
    }

    func trusts(_ address: ClientAddress) -> Bool {
        guard !blocks.isEmpty, let bytes = address.networkBytes else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// Whose request this is: the connection's address, or, from a trusted proxy, the last address in
    /// `X-Forwarded-For` that is not itself a trusted proxy (each proxy appends the address it heard from, so the
    /// addresses to the right of that one were added by proxies we trust, and those to its left by no one we do).
    func client(of request: Request) -> ClientAddress {
        guard trusts(request.client), let forwarded = request.header("x-forwarded-for") else { return request.client }
        var client = request.client
        // At most the last 16 hops: the header is bounded by the connection's memory, but a walk need not be.
        for item in forwarded.split(separator: ",").suffix(16).reversed() {
            let text = item.trimmingCharacters(in: .whitespaces)
            guard let address = ClientAddress(parsing: Substring(text)) else { return client }
            client = address
            if !trusts(address) { return address }
        }
        return client
    }
}

struct TrustedProxiesError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
