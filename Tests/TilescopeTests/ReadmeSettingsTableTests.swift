import Foundation
import Testing
@testable import Tilescope

/// README's `serve` flag table must say what `ServeConfig.settings` (and so `serve --help`) says:
/// the same flags in the same order, with the same variables, defaults and meanings.
/// `scripts/settings-table.sh --write` regenerates the table when a setting changes.
@Suite struct ReadmeSettingsTableTests {
    static let begin = "<!-- serve-settings:begin"
    static let end = "<!-- serve-settings:end"

    /// One table row as README shows it: flag, environment variable, default, meaning.
    struct Row: Equatable, CustomStringConvertible {
        var flag, environment, defaultText, meaning: String
        var description: String { "\(flag) \(environment) [default: \(defaultText)] \(meaning)" }
    }

    /// The rows between the markers, header and separator left out.
    static func readmeRows() throws -> [Row] {
        let text = try String(contentsOfFile: TestServer.repositoryRoot + "/README.md", encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.firstIndex(where: { $0.hasPrefix(begin) }),
              let last = lines.firstIndex(where: { $0.hasPrefix(end) }), first < last else {
            throw UsageError("README.md has no serve-settings markers around its flag table")
        }
        return lines[(first + 1)..<last]
            .filter { $0.hasPrefix("| `--") }
            .map { line in
                let cells = cells(of: line)
                return Row(flag: unquoted(cells[safe: 0]), environment: unquoted(cells[safe: 1]),
                           defaultText: cells[safe: 2], meaning: cells[safe: 3])
            }
    }

    /// Splits `| a | b |` on the bars that are not escaped (`\|` is a bar inside a cell).
    static func cells(of line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        return Array(cells.dropFirst())  // the text before the first bar
    }

    static func unquoted(_ cell: String) -> String {
        cell.count >= 2 && cell.hasPrefix("`") && cell.hasSuffix("`") ? String(cell.dropFirst().dropLast()) : cell
    }

    @Test func readmeTableListsExactlyTheServeSettings() throws {
        let expected = ServeConfig.settings.map {
            Row(flag: $0.flag, environment: $0.environment ?? "", defaultText: $0.defaultText, meaning: $0.help)
        }
        let actual = try Self.readmeRows()
        #expect(actual == expected, """
            README's serve table differs from ServeConfig.settings; run scripts/settings-table.sh --write
            missing or different in README: \(expected.filter { !actual.contains($0) })
            not a setting (or outdated): \(actual.filter { !expected.contains($0) })
            """)
    }

    @Test func cellsKeepEscapedBars() {
        #expect(Self.cells(of: "| `--a` | `A` | 1 \\| 2 | x |") == ["`--a`", "`A`", "1 | 2", "x"])
    }
}

private extension Array where Element == String {
    subscript(safe index: Int) -> String { indices.contains(index) ? self[index] : "" }
}
