import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// A real server with private images, for the access tests: `qsecret.png` and `qother.png` private by
/// `--private-images`, `qhidden.png` private by its sidecar entry, `open.png` public; an admin token to mint
/// signed URLs with. Names and titles are distinctive, so finding one in an answer is never a coincidence.
final class PrivateGallery: @unchecked Sendable {
    static let adminToken = "admin-token-for-access-tests"
    static let privateIDs = ["qsecret", "qother", "qhidden"]
    /// Everything of a private image that must never reach a client without a credential, besides its pixels.
    static let privateWords = privateIDs + ["qsecret.png", "qother.png", "qhidden.png", "Secret Title Wv3", "Secret caption Jk5",
                                            "Hidden Title Qx7", "Hidden caption Zq9", "Qsecret", "Qother", "Qhidden"]
    static let captions = #"""
        {"qhidden.png": {"title": "Hidden Title Qx7", "caption": "Hidden caption Zq9", "access": "private"},
         "qsecret.png": {"title": "Secret Title Wv3", "caption": "Secret caption Jk5"},
         "open.png": {"title": "Open harbour"}}
        """#

    let server: TestServer
    var port: Int { server.port }

    init(_ label: String, configure: (inout ServeConfig) -> Void = { _ in }) throws {
        server = try TestServer(label: label, configure: {
            $0.privateImages = "qsecret*, qother*"
            $0.adminToken = Self.adminToken
            configure(&$0)
        }) { folder in
            for (index, name) in ["open.png", "qsecret.png", "qother.png", "qhidden.png"].enumerated() {
                try TestImages.writePNG(width: 600 + index, height: 400, to: folder + "/" + name, seed: 40 + index)
            }
            try Data(Self.captions.utf8).write(to: URL(fileURLWithPath: folder + "/captions.json"))
        }
        try server.waitUntilBuilt()
    }

    /// The current version of `id`, read from the library (the API does not tell strangers a private one's).
    func version(_ id: String) throws -> String {
        try #require(server.service.library.record(id)?.version)
    }

    /// `POST /api/images/{id}/signed-urls` with the admin token; the answer's JSON.
    func mint(_ id: String, seconds: Int = 3600, images: [String] = []) throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: ["expiresIn": seconds, "images": images])
        let reply = try RawHTTP(port: port).send("POST", "/api/images/\(id)/signed-urls",
                                                 headers: ["Authorization": "Bearer \(Self.adminToken)", "Content-Type": "application/json"],
                                                 body: Array(body))
        #expect(reply.status == 201, "\(reply.text)")
        return try #require(reply.json)
    }

    /// A signed URL's token (`mint(...)["token"]`).
    func token(_ id: String, seconds: Int = 3600, images: [String] = []) throws -> String {
        try #require(try mint(id, seconds: seconds, images: images)["token"] as? String)
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> RawHTTP.Reply {
        try server.get(path, headers: headers)
    }

    /// Waits until the wall clock has passed `token`'s expiry (its second field): the condition itself, polled.
    static func waitUntilExpired(_ token: String) throws {
        let fields = token.split(separator: ".")
        let expires = try #require(Double(fields[1]))
        let deadline = Date().addingTimeInterval(120)
        while Date().timeIntervalSince1970 < expires + 0.05 {
            guard Date() < deadline else { throw TestFailure("token \(fields[0]).\(fields[1]) never expired") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A sample of /metrics whose line starts with `prefix`, 0 if absent.
    func metric(_ prefix: String) throws -> Int {
        let text = try get("/metrics").text
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix + " ") }) else { return 0 }
        return try #require(Double(line.dropFirst(prefix.count + 1)).map { Int($0) })
    }
}
