import Glibc

/// One command-line setting: its flag, its environment variable, its default and how to
/// read it. Flags win over the environment, which wins over the default.
public struct Setting<Config>: Sendable {
    public var flag: String
    public var environment: String?
    public var defaultText: String
    public var help: String
    /// Applies a textual value; throws a one-line reason when the value is bad.
    public var apply: @Sendable (inout Config, String) throws -> Void

    public init(_ flag: String, env: String?, default defaultText: String, _ help: String,
                apply: @escaping @Sendable (inout Config, String) throws -> Void) {
        self.flag = flag
        self.environment = env
        self.defaultText = defaultText
        self.help = help
        self.apply = apply
    }
}

/// A bad command line or environment: the message is one line for the user.
public struct UsageError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(_ message: String) { self.message = message }
}

/// Parsers for setting values.
public enum SettingValue {
    public static func integer(_ text: String, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// What is at a path given for a folder.
    public enum FolderState { case folder, missing, other }

    public static func folderState(_ path: String) -> FolderState {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno == ENOENT ? .missing : .other }
        return (info.st_mode & S_IFMT) == S_IFDIR ? .folder : .other
    }

    public static func boolean(_ text: String, _ name: String) throws -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw UsageError("\(name) must be true or false, not '\(text)'")
        }
    }
}

/// Reads settings from arguments and the environment into a configuration.
public enum SettingsParser {
    /// `arguments` are the ones after the subcommand. Bare arguments go to `positional`.
    public static func parse<Config>(
        _ arguments: [String], environment: [String: String], settings: [Setting<Config>],
        into config: inout Config, positional: inout [String], switches: [String: @Sendable (inout Config) -> Void] = [:]
    ) throws {
        for setting in settings {
            guard let name = setting.environment, let value = environment[name], !value.isEmpty else { continue }
            do { try setting.apply(&config, value) } catch let error as UsageError {
                throw UsageError("\(name): \(error.message)")
            }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            if let flip = switches[argument] {
                flip(&config)
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard let setting = settings.first(where: { $0.flag == parts[0] }) else {
                throw UsageError("unknown option \(parts[0]) (see --help)")
            }
            let value: String
            if parts.count == 2 {
                value = parts[1]
            } else {
                guard index < arguments.count else { throw UsageError("\(setting.flag) needs a value") }
                value = arguments[index]
                index += 1
            }
            try setting.apply(&config, value)
        }
    }

    /// The help table: flag, environment variable, default, meaning.
    public static func help<Config>(_ settings: [Setting<Config>]) -> String {
        let width = settings.map { $0.flag.count }.max() ?? 0
        return settings.map { setting in
            let env = setting.environment.map { " (\($0))" } ?? ""
            let padding = String(repeating: " ", count: width - setting.flag.count)
            return "  \(setting.flag)\(padding)  \(setting.help)\(env) [default: \(setting.defaultText)]"
        }.joined(separator: "\n")
    }
}
