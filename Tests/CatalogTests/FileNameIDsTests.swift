@testable import Catalog
import Testing

/// `FileIdentities`' sorted cache: every binding added is found, a name keeps its first id.
@Suite struct FileNameIDsTests {
    @Test func everyBindingIsFoundAndAFirstBindingStays() {
        var cache = FileNameIDs()
        var expected: [String: String] = [:]
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let size = round % 3 == 0 ? 1 : Int.random(in: 0..<40, using: &generator)
            let batch = (0..<size).map { _ -> (name: String, id: String) in
                let name = "file-\(Int.random(in: 0..<500, using: &generator)).jpg"
                return (name, "id-\(round)-\(name)")
            }
            cache.add(batch)
            for (name, id) in batch where expected[name] == nil { expected[name] = id }
        }
        #expect(cache.count == expected.count)
        for (name, id) in expected { #expect(cache[name] == id) }
        for n in 0..<500 where expected["file-\(n).jpg"] == nil { #expect(cache["file-\(n).jpg"] == nil) }
        #expect(cache[""] == nil)
    }
}
