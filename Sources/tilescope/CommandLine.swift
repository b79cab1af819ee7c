@preconcurrency import Glibc
import Foundation
import HTTPServer
import Imaging
import Tilescope

/// The `tilescope` command: subcommands, help and exit codes. No server logic lives here.
enum TilescopeCommand {
    static let version = "0.1.0"

    static let usage = """
        tilescope \(version): a deep-zoom image tile server

        Usage:
          tilescope serve [options]            serve images (the demo gallery without --images)
          tilescope build IMAGE... [options]   build Deep Zoom pyramids into the data folder
          tilescope health [--port N] [--path P]  exit 0 if the local server answers 200 (for HEALTHCHECK)
          tilescope hash-password              read a password on stdin, print its yescrypt hash (for --users)
          tilescope version                    print versions
          tilescope COMMAND --help             options of a command
        """

    static func main(_ arguments: [String]) -> Int32 {
        setvbuf(Glibc.stdout, nil, _IOLBF, 0)  // stdout is fully buffered when redirected
        guard let command = arguments.first else {
            print(usage)
            return 0
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "serve": return try serve(rest)
            case "build": return try build(rest)
            case "health": return try HealthProbe.main(rest, environment: ProcessInfo.processInfo.environment)
            case "hash-password": return try hashPassword()
            case "version", "--version": return printVersion()
            case "--help", "-h", "help": print(usage); return 0
            default: throw UsageError("unknown command '\(command)' (commands: serve, build, health, hash-password, version)")
            }
        } catch let error as UsageError {
            Log.error(error.message)
            return 2
        } catch {
            Log.error("\(error)")
            return 1
        }
    }

    /// Reads one line (the password) from stdin and prints its yescrypt hash: a users file's third field.
    static func hashPassword() throws -> Int32 {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw UsageError("hash-password reads the password from stdin: printf '%s' \"$PASSWORD\" | tilescope hash-password")
        }
        guard let hash = UserPasswords.yescrypt(line) else { throw UsageError("libxcrypt could not hash the password") }
        print(hash)
        return 0
    }

    static func printVersion() -> Int32 {
        print("tilescope \(version)")
        print("libvips \(Vips.version)")
        print("libmicrohttpd \(Server.libraryVersion)")
        return 0
    }

    static func serve(_ arguments: [String]) throws -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print("Usage: tilescope serve [options]\n\nOptions (flag, environment variable, default):\n"
                  + SettingsParser.help(ServeConfig.settings))
            return 0
        }
        var config = ServeConfig()
        var positional: [String] = []
        try SettingsParser.parse(arguments, environment: ProcessInfo.processInfo.environment,
                                 settings: ServeConfig.settings, into: &config, positional: &positional,
                                 switches: ["--quiet": { $0.quiet = true }])
        guard positional.isEmpty else { throw UsageError("unexpected argument '\(positional[0])' (see --help)") }
        Log.quiet = config.quiet
        let shutdown = ShutdownSignal.install()
        let service: TilescopeService
        do {
            service = try TilescopeService(config, demo: BuiltInDemo())
            try service.start()
        } catch let error as UsageError {
            throw error
        } catch {
            // A folder that cannot be used, a port already taken: the user's to fix, said in one line.
            throw UsageError(startupFailure(error))
        }
        shutdown.wait()
        service.stop()
        withExtendedLifetime(shutdown) {}
        return 0
    }

    /// One readable line for an error that stopped the server from starting.
    static func startupFailure(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, let path = nsError.userInfo[NSFilePathErrorKey] as? String {
            let reason = (nsError.userInfo[NSUnderlyingErrorKey] as? NSError).map { String(cString: strerror(Int32($0.code))) }
            return "cannot start: cannot use \(path): \(reason ?? "not a usable folder")"
        }
        return "cannot start: " + "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    static func build(_ arguments: [String]) throws -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print("Usage: tilescope build IMAGE... [options]\n\nOptions (flag, environment variable, default):\n"
                  + SettingsParser.help(BuildCommand.settings))
            return 0
        }
        var command = BuildCommand()
        var sources: [String] = []
        try SettingsParser.parse(arguments, environment: ProcessInfo.processInfo.environment,
                                 settings: BuildCommand.settings, into: &command, positional: &sources)
        command.sources = sources
        guard !command.sources.isEmpty else { throw UsageError("build needs at least one image file") }
        for source in command.sources where !FileManager.default.fileExists(atPath: source) {
            throw UsageError("no such file: \(source)")
        }
        // Several images built one after another: the threads' malloc caches off for all of them, which glibc
        // takes only from the environment of a starting process (MallocArenas.restartWithoutThreadCaches).
        if command.buildsSeveral { MallocArenas.restartWithoutThreadCaches() }
        let display = ProgressDisplay()
        let failures = try command.run(progress: display.show, log: { Log.info($0) })
        return failures == 0 ? 0 : 1
    }
}
