import Testing
@testable import Tilescope

/// The ETags clients hold in their caches: each kind of answer spelt as it always was, so a refactor of how
/// they are built never makes every cached tile revalidate, and no two kinds of bytes share a tag.
@Suite struct TileETagTests {
    static let version = "0123456789abcdef"
    static let tile = TileETag.Subject.tile(level: 12, column: 3, row: 4)

    @Test func everyKindOfAnswerIsSpeltAsClientsCachedIt() {
        let v = Self.version
        #expect(TileETag(version: v, Self.tile).text == "\"\(v)-12-3-4\"")
        #expect(TileETag(version: v, .preview).text == "\"\(v)-preview\"")
        #expect(TileETag(version: v, .descriptor(format: nil, namesTilesFolder: false)).text == "\"\(v)-dzi\"")
        #expect(TileETag(version: v, .descriptor(format: nil, namesTilesFolder: true)).text == "\"\(v)-dzi-url\"")
        #expect(TileETag(version: v, .descriptor(format: .webp, namesTilesFolder: false)).text == "\"\(v)-dzi-webp\"")
        #expect(TileETag(version: v, .descriptor(format: .avif, namesTilesFolder: true)).text == "\"\(v)-dzi-avif-url\"")
        let made = TileETag(version: v, Self.tile, encoding: "webp")
        #expect(made.text == "\"\(v)-12-3-4-webp\"")
        #expect(made.with(.keptJPEG).text == "\"\(v)-12-3-4-webp-huffman\"")
        #expect(made.with(.keptJPEGXL).text == "\"\(v)-12-3-4-webp-jxl\"")
        #expect(made.with(.interimJPEG).text == "\"\(v)-12-3-4-webp-interim\"")
        #expect(made.with(.interimJPEGXL).text == "\"\(v)-12-3-4-webp-interim-jxl\"")
        #expect(TileETag(version: v, .preview, encoding: "avif", bytes: .keptJPEG).text == "\"\(v)-preview-avif-huffman\"")
    }

    @Test func aTagSaysWhichVersionItIsOf() {
        let tag = TileETag(version: "a-b", Self.tile, encoding: "avif", bytes: .interimJPEG).text
        #expect(TileETag.isTag(tag, ofVersion: "a-b"))
        #expect(!TileETag.isTag(tag, ofVersion: "a-c"))
        #expect(!TileETag.isTag(TileETag(version: Self.version, .preview).text, ofVersion: "a-b"))
    }
}
