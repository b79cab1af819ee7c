import Testing
@testable import HTTPServer

@Suite struct PercentDecodingTests {
    @Test func segmentsAreDecodedOneByOne() {
        #expect(PercentDecoding.segments(of: "/") == [])
        #expect(PercentDecoding.segments(of: "/a/b") == ["a", "b"])
        #expect(PercentDecoding.segments(of: "/a/") == ["a", ""])
        #expect(PercentDecoding.segments(of: "/a%2Fb/c") == ["a/b", "c"])
        #expect(PercentDecoding.segments(of: "/%2e%2e/x") == ["..", "x"])
        #expect(PercentDecoding.segments(of: "/caf%C3%A9") == ["café"])
        #expect(PercentDecoding.segments(of: "/a+b") == ["a+b"])
    }

    @Test func malformedEscapesAreRejected() {
        #expect(PercentDecoding.segments(of: "/%zz") == nil)
        #expect(PercentDecoding.segments(of: "/%2") == nil)
        #expect(PercentDecoding.segments(of: "/%") == nil)
        #expect(PercentDecoding.segments(of: "/%FF%FE") == nil)  // not UTF-8
        #expect(PercentDecoding.segments(of: "relative") == nil)
    }

    @Test func queryValuesTreatPlusAsSpace() {
        #expect(PercentDecoding.decode("a+b%2Bc", plusIsSpace: true) == "a b+c")
        #expect(PercentDecoding.decode("a+b", plusIsSpace: false) == "a+b")
    }

    @Test func encodeRoundTrips() {
        for text in ["plain", "a b/c?d", "ünïcödé", "%41", "..", ""] {
            #expect(PercentDecoding.decode(PercentDecoding.encode(text)) == text)
        }
        #expect(PercentDecoding.encode("a/b c") == "a%2Fb%20c")
    }
}
