import Foundation
import Imaging
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

    @Test func libvipsNoiseIsDropped() {
        let text = FailureReason.text(fileName: "a.jpg", sourcePath: "/p/a.jpg",
                                      Failure(description: "unix error: Unknown error -1\nVipsJpeg: Premature end of input file"))
        #expect(text == "a.jpg: VipsJpeg: Premature end of input file")
        let inline = FailureReason.text(fileName: "a.jpg", sourcePath: "/p/a.jpg",
                                        Failure(description: "vips__file_write: write failed unix error: Unknown error -1"))
        #expect(inline == "a.jpg: vips__file_write: write failed")
        // Nothing but noise: kept, rather than an empty reason.
        #expect(FailureReason.withoutNoise("unix error: Unknown error -1") == "unix error: Unknown error -1")
    }

    /// Found on a full disk: the build's ENOSPC was remembered like a verdict on the file's pixels.
    @Test func theMachinesFailuresAreToldFromTheFiles() {
        let machine = [
            "VipsJpeg: Output file write error --- out of disk space?",
            "unable to write to \"0_0.jpeg\"\nNo space left on device",
            "dzsave: error writing 3_4.jpeg: Disk quota exceeded",
            "VipsForeignLoadTiff: read error: Input/output error",
            "out of memory --- size == 2048MB",
            "vips_image_new_from_file: unable to open: Cannot allocate memory",
            "cannot move .parts/rest/image_files/12 to image_files/12: No such file or directory",
            "unix error: Unknown error -1\nwrite failed",
        ]
        for text in machine {
            #expect(FailureCause.of(VipsError(message: text)) == .machine, "\(text)")
        }
        let file = [
            "VipsJpeg: Premature end of input file",
            "pngload: libpng read error",
            "tiff2vips: unsupported sample format",
            "VipsForeignLoad: \"a.jpg\" is not a known file format",
            "heif: bad seek to 849",
        ]
        for text in file {
            #expect(FailureCause.of(VipsError(message: text)) == .file, "\(text)")
        }
        // What is not libvips's verdict (the store, the folders) is never the file's.
        #expect(FailureCause.of(StoreError(message: "cannot publish level 3 of a: Directory not empty")) == .machine)
        #expect(FailureCause.of(CocoaError(.fileWriteOutOfSpace)) == .machine)
    }

    @Test func retriesWaitLongerEachTimeUpToALimit() {
        let delays = (1...12).map(BuildQueue.retryDelay(attempt:))
        #expect(delays.first == BuildQueue.firstRetrySeconds)
        #expect(zip(delays, delays.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(delays.last == BuildQueue.longestRetrySeconds)
        #expect(BuildQueue.retryDelay(attempt: Int.max) == BuildQueue.longestRetrySeconds)
    }
}
