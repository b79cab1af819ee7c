import Testing
@testable import Tilescope

@Suite struct SettingsTests {
    func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeConfig {
        var config = ServeConfig()
        var positional: [String] = []
        try SettingsParser.parse(arguments, environment: environment, settings: ServeConfig.settings,
                                 into: &config, positional: &positional, switches: ["--quiet": { $0.quiet = true }])
        return config
    }

    @Test func flagsWinOverEnvironmentWhichWinsOverDefaults() throws {
        #expect(try parse([]).port == 8080)
        #expect(try parse([], environment: ["TILESCOPE_PORT": "9000"]).port == 9000)
        #expect(try parse(["--port", "9100"], environment: ["TILESCOPE_PORT": "9000"]).port == 9100)
        #expect(try parse(["--port=9200"]).port == 9200)
        #expect(try parse(["--quiet"]).quiet)
        #expect(try parse(["--cors-origin", "https://a.example"]).corsOrigin == "https://a.example")
        #expect(try parse(["--cors-origin", "http://localhost:8080"]).corsOrigin == "http://localhost:8080")
        #expect(try parse(["--cors-origin", "https://[::1]:8443"]).corsOrigin == "https://[::1]:8443")
        #expect(try parse(["--data", "/tmp/tilescope-settings-no-such-folder"]).dataFolder == "/tmp/tilescope-settings-no-such-folder")
    }

    @Test(arguments: [["--port", "abc"], ["--port", "70000"], ["--port"], ["--bogus", "1"], ["--threads", "0"],
                      ["--quality", "101"], ["--host", "localhost"], ["--images", "/no/such/folder"],
                      ["--demo-gigapixel", "maybe"], ["--images", "/etc/hostname"], ["--data", "/etc/hostname"],
                      ["--data", "/etc/hostname/data"], ["--cors-origin", "https://a.example\r\nX-Injected: 1"],
                      ["--cors-origin", "https://a.example\n"], ["--cors-origin", "https://a.example/path"],
                      ["--cors-origin", "https://a.example, https://b.example"], ["--cors-origin", ""],
                      ["--cors-origin", "a.example"], ["--header-timeout", "0"], ["--max-connections", "0"],
                      ["--settle", "-1"], ["--settle", "nan"], ["--settle", "inf"], ["--express-build-pixels", "-5"]])
    func badValuesAreOneLineErrors(arguments: [String]) {
        do {
            _ = try parse(arguments)
            Issue.record("\(arguments) accepted")
        } catch let error as UsageError {
            #expect(!error.message.isEmpty && !error.message.contains("\n"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func badEnvironmentNamesTheVariable() {
        do {
            _ = try parse([], environment: ["TILESCOPE_TIMEOUT": "forever"])
            Issue.record("accepted")
        } catch let error as UsageError {
            #expect(error.message.hasPrefix("TILESCOPE_TIMEOUT"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Each default is written once, as the field's value in `ServeConfig()`; the text shown is made from
    /// it, so giving that text back must change nothing.
    @Test func theDefaultShownIsTheDefaultValue() throws {
        let fresh = String(describing: ServeConfig())
        for setting in ServeConfig.settings {
            guard let value = setting.defaultValue else { continue }
            var config = ServeConfig()
            try setting.apply(&config, value)
            #expect(String(describing: config) == fresh, "\(setting.flag) \(value)")
        }
        for setting in BuildCommand.settings {
            var command = BuildCommand()
            try setting.apply(&command, try #require(setting.defaultValue))
            #expect(command.dataFolder == BuildCommand().dataFolder && command.quality == BuildCommand().quality)
        }
        for setting in HealthProbe.settings {
            var target = HealthProbe.Target()
            try setting.apply(&target, try #require(setting.defaultValue))
            #expect(target == HealthProbe.Target(), "\(setting.flag)")
        }
        let shown = Dictionary(uniqueKeysWithValues: ServeConfig.settings.map { ($0.flag, $0.defaultText) })
        #expect(shown["--port"] == "8080")
        #expect(shown["--settle"] == "2")
        #expect(shown["--log-format"] == "common")
        #expect(shown["--quiet"] == "false")
        #expect(shown["--max-upload-bytes"] == "1073741824 (1 GiB)")
        #expect(shown["--threads"] == "number of cores")
    }

    @Test func byteCountsInBinaryUnits() {
        #expect(SettingValue.binaryUnits(1 << 30) == "1 GiB")
        #expect(SettingValue.binaryUnits(3 << 20) == "3 MiB")
        #expect(SettingValue.binaryUnits(1536 << 10) == "1536 KiB")
        #expect(SettingValue.binaryUnits(1536) == nil)
        #expect(SettingValue.binaryUnits(1000) == nil)
        #expect(SettingValue.binaryUnits(0) == nil)
    }

    @Test func helpListsEverySettingWithItsDefault() {
        let help = SettingsParser.help(ServeConfig.settings)
        for setting in ServeConfig.settings {
            #expect(help.contains(setting.flag))
            if let env = setting.environment { #expect(help.contains(env)) }
            #expect(help.contains("[default: \(setting.defaultText)]"))
        }
    }
}
