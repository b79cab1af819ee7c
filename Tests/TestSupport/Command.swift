import Foundation

/// A tool run to its end, for tests: `posix_spawn` and `waitpid` on its own pid rather than Foundation's
/// `Process`, whose exit monitoring was seen to miss a child's exit here and wait for good (`runuser`, then
/// `umount` in a test run of many threads and children).
public enum Command {
    /// What a run gave: its exit status (128 + the signal for a signalled one) and what it printed on
    /// standard output and error together.
    public struct Outcome: Sendable {
        public let status: Int32
        public let output: String
    }

    /// Runs `tool` (an absolute path) with `arguments`, standard input from /dev/null, its output through a
    /// file (a tool that leaves a daemon holding inherited descriptors cannot hold a pipe open). `environment`
    /// nil inherits the test's own.
    public static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Outcome {
        let outputPath = NSTemporaryDirectory() + "/command-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in variables ?? [] { free(pointer) } }
        var pid: pid_t = 0
        let spawned = variables.map { posix_spawn(&pid, tool, &actions, nil, argv, $0) }
            ?? posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestFailure("cannot run \(tool): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitCode, output: output)
    }
}
