import Testing
@testable import Tilescope

/// Failure reasons name the file and never a server path.
@Suite struct FailureReasonTests {
    struct Failure: Error, CustomStringConvertible { var description: String }

    @Test func theSourcePathBecomesItsNameAndOtherPathsTheirLastComponent() {
        let text = FailureReason.text(
            fileName: "pic.avif", sourcePath: "/srv/photos/pic.avif",
            Failure(description: "/srv/photos/pic.avif: bad seek to 849\ncannot write \"/var/lib/tilescope/staging/pic-1/image_files/3/0_0.jpeg\""))
        #expect(text == "pic.avif: bad seek to 849\ncannot write \"0_0.jpeg\"")
    }

    @Test func anyOtherTextIsPrefixedWithTheFileName() {
        #expect(FailureReason.text(fileName: "a.jpg", sourcePath: "/p/a.jpg", Failure(description: "VipsJpeg: Premature end of input file"))
                == "a.jpg: VipsJpeg: Premature end of input file")
    }

    @Test func fractionsAndWordsWithSlashesStay() {
        let text = FailureReason.withoutPaths("read 5/10 rows of a/b, at https://x", sourcePath: "/a/x.png", fileName: "x.png")
        #expect(text == "read 5/10 rows of a/b, at https://x")
    }
}
