// The libFuzzer driver for every Tilescope fuzz target: `TILESCOPE_FUZZ_TARGET=<name>` picks one.
//
// One executable for all targets, because each link of the sanitized Tilescope module takes longer than
// compiling all the targets together; scripts/fuzz.sh builds it once and runs it once per target.
// This is a SwiftPM executable target in a package that scripts/fuzz.sh generates under .build/ (the root
// manifest plus this target), so the root Package.swift stays as it is and `@testable import` reaches the
// internal parsers (debug builds enable testing).
import Foundation

guard let name = ProcessInfo.processInfo.environment["TILESCOPE_FUZZ_TARGET"],
      let target = FuzzTargets.all[name] else {
    FileHandle.standardError.write(Data((
        "set TILESCOPE_FUZZ_TARGET to one of: \(FuzzTargets.all.keys.sorted().joined(separator: ", "))\n").utf8))
    exit(2)
}
FuzzTargets.selected = target
exit(FuzzTargets.runLibFuzzer())
