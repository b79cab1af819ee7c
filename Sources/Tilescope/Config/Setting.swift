import Glibc

/// A configuration whose fresh value, `Self()`, holds every default: the one place each is written.
public protocol Configuration {
    init()
}

/// One command-line setting: its flag, its environment variable, its default and how to
/// read it. Flags win over the environment, which wins over the default.
public struct Setting<Config: Configuration>: Sendable {
    public var flag: String
    public var environment: String?
    /// The default as `--help` and README show it, made from the field's value in `Config()`.
    public var defaultText: String
    /// The default as it would be given (`defaultText` without a note), or nil when it is described
    /// rather than given (`.meaning`).
    public var defaultValue: String?
    public var help: String
    /// Applies a textual value; throws a one-line reason when the value is bad.
    public var apply: @Sendable (inout Config, String) throws -> Void

    /// How a default is shown.
    public enum Shown: Sendable {
        /// The value, as it would be given: `8080`, `true`, `2` (a whole number of seconds), `common`.
        case value
        /// The value, and its size in binary units when it is a whole number of them: `1073741824 (1 GiB)`.
        case bytes
        /// What the default does, for a value that is not one to give: empty for none, nil, a count
        /// taken from the machine.
        case meaning(String)
    }

    /// `field` is the setting's field of `Config`: its value in `Config()` is the default.
    public init<Value>(_ flag: String, env: String?, default field: KeyPath<Config, Value>, shown: Shown = .value,
                       _ help: String, apply: @escaping @Sendable (inout Config, String) throws -> Void) {
        self.flag = flag
        self.environment = env
        self.help = help
        self.apply = apply
        let value = Config()[keyPath: field]
        switch shown {
        case .value:
            defaultValue = SettingValue.written(value)
            defaultText = SettingValue.written(value)
        case .bytes:
            defaultValue = SettingValue.written(value)
            defaultText = SettingValue.written(value) + ((value as? Int).flatMap(SettingValue.binaryUnits).map { " (\($0))" } ?? "")
        case .meaning(let text):
            defaultValue = nil
            defaultText = text
        }
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

    /// A value as it would be given on the command line: a whole `Double` without its `.0`, an enum
    /// by its raw value.
    public static func written(_ value: Any) -> String {
        switch value {
        case let number as Double where number.rounded() == number && abs(number) < 1e15: return String(Int(number))
        case let text as any RawRepresentable<String>: return text.rawValue
        default: return "\(value)"
        }
    }

    /// `1 GiB` for 1073741824: the largest binary unit that divides a byte count, nil for none (or 0).
    public static func binaryUnits(_ bytes: Int) -> String? {
        guard bytes > 0 else { return nil }
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes % (1 << shift) == 0 {
            return "\(bytes >> shift) \(unit)"
        }
        return nil
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
    public static func parse<Config: Configuration>(
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
    public static func help<Config: Configuration>(_ settings: [Setting<Config>]) -> String {
        let width = settings.map { $0.flag.count }.max() ?? 0
        return settings.map { setting in
            let env = setting.environment.map { " (\($0))" } ?? ""
            let padding = String(repeating: " ", count: width - setting.flag.count)
            return "  \(setting.flag)\(padding)  \(setting.help)\(env) [default: \(setting.defaultText)]"
        }.joined(separator: "\n")
    }
}
