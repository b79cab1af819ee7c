import Foundation
import ObjectStore
import TestSupport
import XCTest

/// Objects to and from files against a real SeaweedFS: a PUT streamed from a file (several of the client's
/// 1 MiB slices), conditional like any PUT; a download made of ranged GETs, byte for byte, refused when larger
/// than allowed or of another ETag than expected, and an empty object.
final class S3FileTransferTests: XCTestCase {
    private func scratchFile(_ bytes: [UInt8]) throws -> String {
        let path = try TestScratch.folder("s3-files") + "/\(UUID().uuidString)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    private func download(_ client: S3Client, _ key: String, expectedETag: String? = nil, maxBytes: Int,
                          rangeBytes: Int = 1 << 16) throws -> (S3ObjectInfo, [UInt8]) {
        let path = try scratchFile([])
        let descriptor = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let info = try client.download(key, into: descriptor, expectedETag: expectedETag, maxBytes: maxBytes, rangeBytes: rangeBytes)
        return (info, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    func testAFileIsPutStreamedAndDownloadedInRanges() throws {
        let client = try S3Store.freshClient()
        let body = S3Store.binary(3_300_000, seed: 11)  // four slices of the streamed PUT, 51 ranges of 64 KiB
        let file = try scratchFile(body)
        guard case .stored(let etag) = try client.putObject("gallery/big.bin", file: file) else { return XCTFail("not stored") }
        XCTAssertEqual(try client.getObject("gallery/big.bin").body, body, "the streamed PUT stored other bytes")
        XCTAssertEqual(try client.putObject("gallery/big.bin", file: file, ifNoneMatch: true), .alreadyExists)

        let (info, bytes) = try download(client, "gallery/big.bin", expectedETag: etag, maxBytes: body.count)
        XCTAssertEqual(info.size, body.count)
        XCTAssertEqual(info.etag, etag)
        XCTAssertTrue(bytes == body, "the ranged download differs from the object")
    }

    func testADownloadIsRefusedOverItsBoundOrOfAnotherVersion() throws {
        let client = try S3Store.freshClient()
        let body = S3Store.binary(200_000, seed: 3)
        _ = try client.putObject("a.bin", body: body)
        XCTAssertThrowsError(try download(client, "a.bin", maxBytes: 199_999)) { error in
            XCTAssertEqual(error as? S3Client.DownloadRefusal, .tooLarge(size: 200_000, limit: 199_999), "\(error)")
        }
        XCTAssertThrowsError(try download(client, "a.bin", expectedETag: "\"not-its-etag\"", maxBytes: 1 << 20)) { error in
            XCTAssertEqual(error as? S3Client.DownloadRefusal, .changed, "\(error)")
        }
        XCTAssertThrowsError(try download(client, "missing.bin", maxBytes: 1 << 20)) { error in
            XCTAssertEqual((error as? S3Error)?.status, 404, "\(error)")
        }
        _ = try client.putObject("empty.bin", body: [])
        let (info, bytes) = try download(client, "empty.bin", maxBytes: 10)
        XCTAssertEqual(info.size, 0)
        XCTAssertEqual(bytes, [])
    }

    func testAFileThatIsNotThereIsRefusedBeforeSending() throws {
        let client = try S3Store.freshClient()
        XCTAssertThrowsError(try client.putObject("x", file: "/nonexistent/\(UUID().uuidString)")) { error in
            guard case .invalidArgument = error as? S3Error else { return XCTFail("\(error)") }
        }
    }
}
