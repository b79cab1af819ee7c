import Foundation
import Testing
@testable import Tilescope

/// The ETags clients hold in their caches (`TileETag`, `DocumentETag`): each kind of answer spelt as it always
/// was, so a refactor of how they are built never makes every cached tile revalidate, and no two kinds of bytes
/// share a tag.
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

    /// IIIF answers are bound to the version too: an image by a hash of its canonical path (commas cannot go
    /// in an `If-None-Match` list), an info.json by a hash of its base URI, per API version and media type.
    @Test func iiifAnswersAreSpeltAsClientsCachedThem() {
        let v = Self.version, base = "https://tiles.example.org/iiif/3/harbour"
        #expect(TileETag(version: v, .iiifImage(canonical: "full/max/0/default.jpg")).text == "\"\(v)-4564541fe58dff05\"")
        #expect(TileETag(version: v, .iiifInfo(apiVersion: 3, base: base, jsonLD: false)).text == "\"\(v)-info-4f1d78693d512517-json\"")
        #expect(TileETag(version: v, .iiifInfo(apiVersion: 3, base: base, jsonLD: true)).text == "\"\(v)-info-4f1d78693d512517-ld\"")
        #expect(TileETag(version: v, .iiifInfo(apiVersion: 2, base: base, jsonLD: false)).text == "\"\(v)-info2-4f1d78693d512517-json\"")
        #expect(TileETag.isTag(TileETag(version: "a-b", .iiifImage(canonical: "full/max/0/default.jpg")).text, ofVersion: "a-b"))
    }

    /// No two kinds of answer of one version share a tag: a rendering's hash is not a tile's `L-C-R`, nor
    /// `preview`, `dzi` or `info`; two renderings, two hosts and the two API versions differ.
    @Test func noTwoKindsShareATag() {
        let v = Self.version
        let subjects: [TileETag.Subject] = [
            Self.tile, .preview, .descriptor(format: nil, namesTilesFolder: false), .descriptor(format: nil, namesTilesFolder: true),
            .iiifImage(canonical: "full/max/0/default.jpg"), .iiifImage(canonical: "full/max/0/default.png"),
            .iiifInfo(apiVersion: 3, base: "http://a/iiif/3/x", jsonLD: false), .iiifInfo(apiVersion: 3, base: "http://b/iiif/3/x", jsonLD: false),
            .iiifInfo(apiVersion: 2, base: "http://a/iiif/3/x", jsonLD: false), .iiifInfo(apiVersion: 3, base: "http://a/iiif/3/x", jsonLD: true),
        ]
        let texts = subjects.map { TileETag(version: v, $0).text }
        #expect(Set(texts).count == texts.count, "\(texts)")
    }

    /// Answers bound to no version: documents by a hash of their bytes (hex without leading zeros), client
    /// files by their size and modification time.
    @Test func documentsAreSpeltAsClientsCachedThem() {
        #expect(DocumentETag(.presentation, body: Array("a".utf8)).text == "\"p3-af63dc4c8601ec8c\"")
        #expect(DocumentETag(.openAPI, body: Array("{}".utf8)).text == "\"openapi-8f44b07b5901a25\"")
        #expect(DocumentETag(.presentation, body: []).text == "\"p3-cbf29ce484222325\"")
        #expect(DocumentETag(clientFileOfSize: 1234, modified: timespec(tv_sec: 1_700_000_000, tv_nsec: 5)).text
                == "\"1234-17000000005\"")
        #expect(DocumentETag(.presentation, body: [1]) != DocumentETag(.openAPI, body: [1]))
    }

    @Test func aTagSaysWhichVersionItIsOf() {
        let tag = TileETag(version: "a-b", Self.tile, encoding: "avif", bytes: .interimJPEG).text
        #expect(TileETag.isTag(tag, ofVersion: "a-b"))
        #expect(!TileETag.isTag(tag, ofVersion: "a-c"))
        #expect(!TileETag.isTag(TileETag(version: Self.version, .preview).text, ofVersion: "a-b"))
    }
}
