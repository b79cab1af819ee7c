import Foundation

/// A throwaway PostgreSQL server for tests: `initdb` + `pg_ctl` in a temporary folder, listening
/// only on a free loopback port, no system service. Started once per test process (the first
/// `shared` call) and stopped when the process exits. Each test takes a database of its own
/// (`freshDatabaseURL`), so tests stay independent while sharing the server.
///
/// Debian's `postgresql` package must be installed (scripts/test.sh installs it): without it
/// `shared` throws, and the test FAILS, never skips. PostgreSQL refuses to run as root, so as
/// root the server runs as the `postgres` user the package creates.
public final class PostgresCluster: @unchecked Sendable {
    public let folder: String
    public let port: Int
    public let binaries: String

    nonisolated(unsafe) private static var instance: PostgresCluster?
    private static let lock = NSLock()

    /// The running test server, started at the first call.
    public static func shared() throws -> PostgresCluster {
        try lock.withLock {
            if let instance { return instance }
            let cluster = try PostgresCluster()
            instance = cluster
            atexit(stopSharedCluster)
            return cluster
        }
    }

    /// A server of its own, for a test that stops or restarts it (others must not see that):
    /// the caller stops it.
    public static func standalone() throws -> PostgresCluster {
        try PostgresCluster()
    }

    /// `postgres://` URL of a new, empty database on the shared server.
    public static func freshDatabaseURL() throws -> String {
        let cluster = try shared()
        let name = "t_\(UInt64.random(in: 0...UInt64.max))"
        try cluster.psql("CREATE DATABASE \(name)")
        return cluster.url(database: name)
    }

    public func url(database: String) -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    private init() throws {
        binaries = try Self.findBinaries()
        var template = Array("/tmp/tilescope-pg-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw ClusterError("mkdtemp failed: errno \(errno)") }
        folder = String(cString: created)
        port = try Self.freePort()
        if getuid() == 0 {
            _ = try Self.run("/bin/chown", ["-R", "postgres:postgres", folder])
        }
        try asOwner(binaries + "/initdb", ["-D", folder + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8",
                                           "--no-sync", "--locale=C"])
        // fsync off: a test server's data never needs to survive a power cut, and fsyncs are slow here.
        try asOwner(binaries + "/pg_ctl", ["-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60",
                                          "-o", "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(folder) -c fsync=off -c max_connections=200",
                                          "start"])
    }

    /// Stops the server (fast shutdown), waiting for it.
    public func stop() {
        _ = try? asOwner(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Stops and starts the server again on the same port: for reconnection tests.
    public func restart(downSeconds: Double = 0) throws {
        try asOwner(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "stop"])
        if downSeconds > 0 { Thread.sleep(forTimeInterval: downSeconds) }
        try asOwner(binaries + "/pg_ctl", ["-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60",
                                          "-o", "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(folder) -c fsync=off -c max_connections=200",
                                          "start"])
    }

    /// Runs one SQL command through `psql` as the superuser.
    public func psql(_ sql: String, database: String = "postgres") throws {
        let psql = FileManager.default.isExecutableFile(atPath: binaries + "/psql") ? binaries + "/psql" : "/usr/bin/psql"
        _ = try Self.run(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port),
                                "-U", "postgres", "-d", database, "-c", sql])
    }

    private func asOwner(_ tool: String, _ arguments: [String]) throws {
        if getuid() == 0 {
            _ = try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments)
        } else {
            _ = try Self.run(tool, arguments)
        }
    }

    /// `/usr/lib/postgresql/<newest>/bin`.
    private static func findBinaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        throw ClusterError("PostgreSQL is not installed (no \(root)/*/bin/initdb): apt-get install postgresql (scripts/test.sh does)")
    }

    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ClusterError("socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw ClusterError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a tool and returns what it printed (`Command`: output through a file, since `pg_ctl start`
    /// leaves the server holding inherited descriptors).
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let outcome = try Command.run(tool, arguments)
        guard outcome.status == 0 else {
            throw ClusterError("\((tool as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (\(outcome.status)): \(outcome.output)")
        }
        return outcome.output
    }
}

/// Why the test PostgreSQL could not be started or used.
public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// atexit wants a C function: a named one, not a closure literal.
private func stopSharedCluster() {
    PostgresClusterExit.stop()
}

enum PostgresClusterExit {
    static func stop() {
        (try? PostgresCluster.sharedIfRunning())?.stop()
    }
}

extension PostgresCluster {
    static func sharedIfRunning() throws -> PostgresCluster? {
        lock.withLock { instance }
    }
}
