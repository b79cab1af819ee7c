import Testing
@testable import HTTPServer

/// The header-name and timing helpers that run on every request.
@Suite struct ASCIITests {
    @Test func timingIsMillisecondsWithThreeDecimals() {
        #expect(ASCII.timing(prefix: "total;dur=", seconds: 0.000052) == "total;dur=0.052")
        #expect(ASCII.timing(prefix: "total;dur=", seconds: 0) == "total;dur=0.000")
        #expect(ASCII.timing(prefix: "total;dur=", seconds: 1.2345678) == "total;dur=1234.568")
        #expect(ASCII.timing(prefix: "", seconds: 0.0105) == "10.500")
        #expect(ASCII.milliseconds(12.5) == "12500.000")
        // A clock that went backwards or a nonsense value gives a number, never a trap.
        #expect(ASCII.timing(prefix: "d=", seconds: -3) == "d=0.000")
        #expect(ASCII.timing(prefix: "d=", seconds: .nan) == "d=0.000")
        #expect(ASCII.timing(prefix: "d=", seconds: .infinity) == "d=0.000")
        #expect(ASCII.timing(prefix: "d=", seconds: 1e300) == "d=1000000000000.000")
    }

    @Test func lowercasingOnlyCopiesWhenSomethingChanges() {
        #expect(ASCII.lowercased("If-None-Match") == "if-none-match")
        #expect(ASCII.lowercased("host") == "host")
        #expect(ASCII.lowercased("ÄB") == "Äb")
        // From a C string, as header names arrive: the same as lower-casing what `String(cString:)` reads,
        // invalid UTF-8 repaired the same way.
        for name in ["If-None-Match", "host", "ÄB", "X-A_Z@[`{", "", "\u{7F}Z"] {
            #expect(name.withCString { ASCII.lowercased(cString: $0) } == ASCII.lowercased(name))
        }
        let invalid: [CChar] = [72, -1, 79, -61, 0]  // "H", a lone 0xFF, "O", a truncated two-byte sequence
        #expect(invalid.withUnsafeBufferPointer { ASCII.lowercased(cString: $0.baseAddress!) }
                == ASCII.lowercased(invalid.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }))
        #expect(ASCII.equalIgnoringCase("Server-Timing", "server-timing"))
    }
}
