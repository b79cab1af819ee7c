import Catalog
import Foundation
import ObjectStore
import TestSupport
import Testing
@testable import Tilescope

/// The parts of `--images s3://` below the server: which keys are sources, a listing paged through a real
/// SeaweedFS with hostile keys among the good ones, and a build's download (`SourceDownload`) that stages the
/// version listed, refuses an object over the limits as the object's fault, and a store that does not answer
/// as the machine's, leaving no staging file behind.
@Suite struct BucketSourcesTests {
    @Test(arguments: [
        ("g/harbour.jpg", "harbour.jpg"), ("g/sub/flat.png", "sub/flat.png"), ("g/café ñ.jpeg", "café ñ.jpeg"),
        ("g/a b+c$.tif", "a b+c$.tif"),
    ])
    func keysUnderThePrefixAreSourcesByTheirNames(key: String, name: String) throws {
        #expect(try BucketObjectName.name(of: key, prefix: "g").get() == name)
    }

    @Test(arguments: [
        ("other/x.jpg", BucketObjectName.Refusal.outsidePrefix), ("gx/y.jpg", .outsidePrefix),
        ("g/../escape.jpg", .badSegment), ("g/a/../../escape.jpg", .badSegment), ("g//abs.jpg", .badSegment),
        ("g/./x.jpg", .badSegment), ("g/nul\u{0}.jpg", .controlCharacter), ("g/bell\u{7}.jpg", .controlCharacter),
        ("g/line\nbreak.jpg", .controlCharacter), ("g/c1\u{85}.jpg", .controlCharacter), ("g/ctl\u{fffd}.jpg", .controlCharacter),
        ("g/.hidden.jpg", .hidden), ("g/.upload-1.part", .hidden), ("g/.git/x.jpg", .hidden),
        ("g/folder/", .notASource), ("g/notes.txt", .notASource), ("g/captions.json", .notASource),
        ("g/backup.jpg~", .notASource), ("g/", .notASource),
    ])
    func otherKeysAreNot(key: String, refusal: BucketObjectName.Refusal) {
        #expect(throws: refusal) { try BucketObjectName.name(of: key, prefix: "g").get() }
    }

    @Test func overlongNamesAndUnusableETagsAreRefused() throws {
        let long = "g/" + String(repeating: "a", count: BucketObjectName.maxNameBytes) + ".jpg"
        #expect(throws: BucketObjectName.Refusal.tooLong) { try BucketObjectName.name(of: long, prefix: "g").get() }
        #expect(try BucketObjectName.name(of: "x.jpg", prefix: "").get() == "x.jpg", "the whole bucket as the prefix")
        #expect(BucketObjectName.isUsable(etag: "\"9bb58f26192e4ba00f01e2e7b136bbd8\""))
        #expect(!BucketObjectName.isUsable(etag: ""))
        #expect(!BucketObjectName.isUsable(etag: String(repeating: "e", count: 257)))
        #expect(!BucketObjectName.isUsable(etag: "\"a\u{0}b\""))
    }

    @Test func anObjectsFingerprintFollowsItsSizeAndETagOnly() {
        let one = SourceFingerprint.object(size: 10, etag: "\"a\"")
        #expect(one == SourceFingerprint.object(size: 10, etag: "\"a\""))
        #expect(one != SourceFingerprint.object(size: 11, etag: "\"a\""))
        #expect(one != SourceFingerprint.object(size: 10, etag: "\"b\""))
        #expect(one.value.count == 16)
    }

    static func bucket(_ server: SeaweedServer, name: String, prefix: String = "g", pageSize: Int = 1000,
                       maxObjectBytes: Int = 1 << 30, wholeListingSeconds: Int = 0) throws -> BucketSources {
        let credentials = SigV4Credentials(accessKeyID: server.accessKey, secretAccessKey: server.secretKey)
        let client = try S3Client(settings: S3Settings(endpoint: server.endpoint, region: server.region, bucket: name,
                                                       credentials: credentials))
        try client.createBucket()
        return BucketSources(client: client, prefix: prefix, location: "s3://\(name)/\(prefix)", maxObjectBytes: maxObjectBytes,
                             pageSize: pageSize, wholeListingSeconds: wholeListingSeconds)
    }

    @Test func aListingPagesThroughTheBucketAndLeavesOtherKeysAlone() throws {
        let server = try SeaweedServer.shared()
        let bucket = try Self.bucket(server, name: "list-\(UInt32.random(in: 0...UInt32.max))", pageSize: 7)
        let good = (0..<20).map { String(format: "p%02d.jpg", $0) } + ["sub/deep/q.png", "é ü.tif"]
        for name in good { _ = try bucket.client.putObject("g/" + name, body: Array(name.utf8)) }
        #expect(try bucket.list().count == good.count)
        #expect(bucket.requestCounts.listRequests == 4, "22 keys in pages of 7 are 4 requests, and nothing else is asked")
        // Hostile or odd keys: whatever the store keeps of them (it may refuse some), none is a source.
        for key in ["g/.hidden.jpg", "g/notes.txt", "g/ctl\u{1}.jpg", "g/nul\u{0}.jpg", "g/folder/", "g/x.jpg~",
                    "outside.jpg", "gx/y.jpg"] {
            _ = try? bucket.client.putObject(key, body: [1, 2, 3])
        }
        let listed = try bucket.list()
        #expect(listed.map(\.name) == good.sorted(), "\(listed.map(\.name))")
        #expect(listed.allSatisfy { $0.key == "g/" + $0.name && $0.size == $0.name.utf8.count })
        #expect(Set(listed.map(\.version)).count == good.count, "every object its own fingerprint")
        #expect(bucket.unreachableReason == nil)

        // A changed object gets a new fingerprint from the listing alone; the others keep theirs.
        _ = try bucket.client.putObject("g/p03.jpg", body: Array("changed".utf8))
        let again = try bucket.list()
        let changed = zip(listed, again).filter { $0.version != $1.version }.map(\.0.name)
        #expect(changed == ["p03.jpg"])
    }

    /// Between whole listings of a bucket of several pages, a pass asks only for the keys after the last one: one
    /// request, which finds objects added under names that sort last; the rest waits for a whole listing, which
    /// this server's own writes, a failed listing and the interval each bring.
    @Test func betweenWholeListingsAPassAsksOnlyForKeysAfterTheLast() throws {
        let server = try SeaweedServer.shared()
        let bucket = try Self.bucket(server, name: "after-\(UInt32.random(in: 0...UInt32.max))", pageSize: 3,
                                     wholeListingSeconds: 3600)
        for name in ["b1.jpg", "b2.jpg", "b3.jpg", "b4.jpg", "b5.jpg"] { _ = try bucket.client.putObject("g/" + name, body: [1]) }
        #expect(try bucket.list().count == 5)
        #expect(bucket.requestCounts.listRequests == 2, "5 keys in pages of 3")

        #expect(try bucket.list().map(\.name) == ["b1.jpg", "b2.jpg", "b3.jpg", "b4.jpg", "b5.jpg"])
        #expect(bucket.requestCounts.listRequests == 3, "nothing added: one request")

        // Added after the last key: seen at the next pass, with the known ones, by one request.
        _ = try bucket.client.putObject("g/c1.jpg", body: [1, 2])
        _ = try bucket.client.putObject("g/notes.txt", body: [1])  // not a source, but the greatest key
        #expect(try bucket.list().map(\.name) == ["b1.jpg", "b2.jpg", "b3.jpg", "b4.jpg", "b5.jpg", "c1.jpg"])
        #expect(bucket.requestCounts.listRequests == 4)

        // Added before it, replaced, removed: not seen until a whole listing.
        _ = try bucket.client.putObject("g/a1.jpg", body: [1])
        _ = try bucket.client.putObject("g/b2.jpg", body: [9, 9, 9])
        try bucket.client.deleteObject("g/b4.jpg")
        let between = try bucket.list()
        #expect(between.map(\.name) == ["b1.jpg", "b2.jpg", "b3.jpg", "b4.jpg", "b5.jpg", "c1.jpg"])
        #expect(between.first { $0.name == "b2.jpg" }?.size == 1)
        #expect(bucket.requestCounts.listRequests == 5)

        bucket.listWholeNext()  // as after an upload or a deletion through this server
        let whole = try bucket.list()
        #expect(whole.map(\.name) == ["a1.jpg", "b1.jpg", "b2.jpg", "b3.jpg", "b5.jpg", "c1.jpg"])
        #expect(whole.first { $0.name == "b2.jpg" }?.size == 3)
        #expect(bucket.requestCounts.listRequests == 8, "7 keys in pages of 3")

        // With no interval (or a bucket of one page) every pass is whole.
        let every = try Self.bucket(server, name: "every-\(UInt32.random(in: 0...UInt32.max))", pageSize: 3, wholeListingSeconds: 0)
        for name in ["b1.jpg", "b2.jpg", "b3.jpg", "b4.jpg"] { _ = try every.client.putObject("g/" + name, body: [1]) }
        _ = try every.list()
        _ = try every.client.putObject("g/a0.jpg", body: [1])
        #expect(try every.list().map(\.name).first == "a0.jpg")
        #expect(every.requestCounts.listRequests == 4)
    }

    @Test func aListingOfAStoreThatDoesNotAnswerFailsWholeAndSaysWhy() throws {
        let bucket = try Self.unreachable()
        #expect(throws: S3Error.self) { try bucket.list() }
        #expect(bucket.unreachableReason?.contains("s3://nowhere/g cannot be listed") == true, "\(bucket.unreachableReason ?? "nil")")
    }

    /// A bucket on a loopback port where nothing listens: every call is refused at once (retryable).
    static func unreachable() throws -> BucketSources {
        let client = try S3Client(settings: S3Settings(endpoint: "http://127.0.0.1:1", region: "us-east-1", bucket: "nowhere",
                                                       credentials: SigV4Credentials(accessKeyID: "a", secretAccessKey: "b")))
        return BucketSources(client: client, prefix: "g", location: "s3://nowhere/g", maxObjectBytes: 1 << 20)
    }

    static func record(_ object: BucketObject, in bucket: BucketSources) -> ImageRecord {
        ImageRecord(id: "x", fileName: object.name, folder: bucket.location, version: object.version,
                    stamp: SourceFingerprint.Stamp(size: object.size, modifiedNanoseconds: 0), header: nil, status: .queued)
    }

    static func staged(_ folder: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? ["(missing)"]
    }

    /// What is still staged in `folder` once it has had `seconds` to empty: a build marks its image ready
    /// before it removes the downloaded copy it read, so a check made right at "ready" can fall in between.
    static func stagedAfterSettling(_ folder: String, seconds: Double = 10) -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        var left = staged(folder)
        while !left.isEmpty, left != ["(missing)"], Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            left = staged(folder)
        }
        return left
    }

    @Test func aDownloadStagesTheListedVersionOrSaysWhoseFaultItIsNot() throws {
        let server = try SeaweedServer.shared()
        let bucket = try Self.bucket(server, name: "dl-\(UInt32.random(in: 0...UInt32.max))")
        let root = try TestScratch.folder("bucket-download")
        try TestImages.writeJPEG(width: 300, height: 200, to: root + "/a.jpg")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/a.jpg")))
        _ = try bucket.client.putObject("g/sub/a.jpg", body: bytes)
        let object = try #require(try bucket.list().first)
        let download = try SourceDownload(bucket: bucket, dataFolder: root + "/data", limits: SourceLimits(maxPixels: 1_000_000))

        // Staged under a name of the server's, inside the staging folder, byte for byte.
        let path = try download.stage(Self.record(object, in: bucket))
        #expect(path.hasPrefix(download.folder + "/") && path.hasSuffix(".jpg") && !path.contains("sub"))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        unlink(path)

        // Another version than the one listed: the build stops as for a changed file.
        _ = try bucket.client.putObject("g/sub/a.jpg", body: bytes + [0])
        #expect(throws: PartPublisher.SourceChanged.self) { try download.stage(Self.record(object, in: bucket)) }
        let current = try #require(try bucket.list().first)

        // Over the pixel limit: the object's fault, remembered like libvips's verdict.
        let strict = try SourceDownload(bucket: bucket, dataFolder: root + "/data", limits: SourceLimits(maxPixels: 50_000))
        do {
            _ = try strict.stage(Self.record(current, in: bucket))
            Issue.record("a 300x200 source staged under a 50,000-pixel limit")
        } catch {
            #expect(error is SourceDownload.Refused, "\(error)")
            #expect("\(error)".contains("300x200"), "\(error)")
            #expect(FailureCause.of(error) == .file)
        }
        #expect(Self.staged(download.folder).isEmpty, "staging files left: \(Self.staged(download.folder))")

        // The store not answering: the machine's trouble (retried), said with where the source is.
        let gone = try SourceDownload(bucket: try Self.unreachable(), dataFolder: root + "/data2", limits: SourceLimits(maxPixels: 1_000_000))
        do {
            _ = try gone.stage(Self.record(current, in: bucket))
            Issue.record("staged from a store that does not answer")
        } catch {
            #expect((error as? S3Error)?.isRetryable == true, "\(error)")
            #expect(FailureCause.of(error) == .machine)
        }
        #expect(Self.staged(gone.folder).isEmpty, "staging files left: \(Self.staged(gone.folder))")
    }

    @Test func theExtensionKeptForLoadersIsPlain() {
        #expect(SourceDownload.suffix(of: "a/b.JPG") == ".jpg")
        #expect(SourceDownload.suffix(of: "a.tar.gz") == ".gz")
        #expect(SourceDownload.suffix(of: "noext") == "")
        #expect(SourceDownload.suffix(of: "dir.d/file") == "")
        #expect(SourceDownload.suffix(of: "x.j/pg") == "")
        #expect(SourceDownload.suffix(of: "x.averyverylongext") == "")
        #expect(SourceDownload.suffix(of: "x.a-b") == "")
    }
}
