import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// A real server with users (docs/access.md): `qsecret.png` private by `--private-images`, `open.png` public,
/// a users file with a viewer (`ann`) and an admin (`root`) whose hashes libxcrypt made, `--auth-header` from a
/// trusted proxy (loopback), and optionally a degraded tier. It can be stopped and started again on the same
/// folders and catalog, as a restart is.
final class AccountsServer: @unchecked Sendable {
    static let viewerPassword = "correct horse battery"
    static let adminPassword = "admin staple"
    static let adminToken = "admin-token-for-accounts-tests"
    static let proxyHeader = "X-Remote-User"

    let root: String
    let usersFile: String
    let configure: (inout ServeConfig) -> Void
    private(set) var service: TilescopeService
    var port: Int { service.server.port }
    var origin: String { "http://127.0.0.1" }

    init(_ label: String, configure: @escaping (inout ServeConfig) -> Void = { _ in }) throws {
        root = try TestImages.folder(label)
        try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        try TestImages.writePNG(width: 600, height: 400, to: root + "/images/open.png", seed: 60)
        try TestImages.writePNG(width: 640, height: 480, to: root + "/images/qsecret.png", seed: 61)
        usersFile = root + "/users"
        let viewer = try #require(UserPasswords.yescrypt(Self.viewerPassword))
        let admin = try #require(UserPasswords.yescrypt(Self.adminPassword))
        try Data("# test users\nann:viewer:\(viewer)\n\nroot:admin:\(admin)\n".utf8).write(to: URL(fileURLWithPath: usersFile))
        self.configure = configure
        service = try Self.start(root: root, users: usersFile, configure: configure)
        try waitUntilBuilt()
    }

    private static func start(root: String, users: String, configure: (inout ServeConfig) -> Void) throws -> TilescopeService {
        var config = ServeConfig()
        config.host = "127.0.0.1"
        config.port = 0
        config.imagesFolder = root + "/images"
        config.dataFolder = root + "/data"
        config.pollThreads = 2
        config.workerThreads = 2
        config.rescanSeconds = 1
        config.settleSeconds = 0
        config.quiet = true
        config.privateImages = "qsecret*"
        config.usersFile = users
        config.adminToken = adminToken
        config.authHeader = proxyHeader
        config.trustedProxies = "127.0.0.1"
        configure(&config)
        Log.quiet = true
        let service = try TilescopeService(config)
        try service.start()
        return service
    }

    deinit { service.stop() }

    /// Stops the server and starts another on the same folders and catalog (a new port).
    func restart() throws {
        service.stop()
        service = try Self.start(root: root, users: usersFile, configure: configure)
        try waitUntilBuilt()
    }

    func waitUntilBuilt(timeout: Double = 120) throws {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if service.sync.fullScansCompleted > 0, service.library.all.count == 2,
               service.library.all.allSatisfy({ $0.status.name == "ready" }) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("images not built after \(timeout) s")
    }

    func version(_ id: String) throws -> String {
        try #require(service.library.record(id)?.version)
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") throws -> RawHTTP.Reply {
        try RawHTTP(port: port).send(method, path, headers: headers, body: Array(body.utf8))
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> RawHTTP.Reply {
        try send("GET", path, headers: headers)
    }

    /// The value of cookie `name` a reply sets, nil when it sets none.
    static func cookie(_ name: String, in reply: RawHTTP.Reply) -> String? {
        for field in reply.fields where field.name.lowercased() == "set-cookie" && field.value.hasPrefix(name + "=") {
            return String(field.value.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }

    /// Signs in through the login page as a browser does (its cookie and form secret); the session cookie's
    /// value and the whole reply.
    func signIn(_ name: String, _ password: String, json: Bool = false) throws -> (session: String?, reply: RawHTTP.Reply) {
        let page = try get("/auth/login")
        let login = try #require(Self.cookie("tilescope_login", in: page))
        var headers = ["Cookie": "tilescope_login=\(login)", "Content-Type": "application/x-www-form-urlencoded", "Origin": origin]
        if json { headers["Accept"] = "application/json" }
        let body = "name=\(Self.formEncoded(name))&password=\(Self.formEncoded(password))&csrf=\(login)"
        let reply = try send("POST", "/auth/login", headers: headers, body: body)
        return (Self.cookie("tilescope_session", in: reply), reply)
    }

    /// `GET /api/session` with the session cookie: its JSON.
    func session(_ cookie: String) throws -> [String: Any] {
        try #require(try get("/api/session", headers: ["Cookie": "tilescope_session=\(cookie)"]).json)
    }

    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text)
    }
}
