import Foundation
@testable import Tilescope

/// `pyramidal-sources-json`: the images folder's rule per file (`SourceServingRules.parse`): any bytes give rules
/// or a `RulesError`, never a trap; every rule's name is one a file in the folder could have.
enum PyramidalSourcesTarget {
    static func run(_ bytes: [UInt8]) {
        guard let rules = try? SourceServingRules.parse(Data(bytes)) else { return }
        for name in rules.keys {
            FuzzCheck.require(!name.isEmpty && name.utf8.count <= SourceServingRules.maxNameBytes && !name.contains("/"),
                              "a rule for \(name.prefix(80).debugDescription)")
        }
    }
}
