import CHTTPShims
import Foundation
import HTTPServer
@testable import Tilescope

/// The hot responses' C code (CHTTPShims' hot_responses.c), which reads every GET and HEAD before Swift does:
/// a table filled, dropped and asked by a script the input spells, against a model of what it must hold.
///
/// Requests go through `ts_hot_decide`, the access callback's own scan of the headers, rebuild of the target
/// from the path and query arguments, lookup and `If-None-Match` match (only libmicrohttpd's parsing is left
/// out). Checked after every step: a request is looked up under exactly its path and arguments rebuilt, and
/// only when it may be (GET or HEAD, no body announced, at most one ASCII `If-None-Match`, under 1 KB); it is
/// answered only for a key inserted and neither dropped nor evicted since, and then always; 304 exactly when
/// a member of `If-None-Match` is `*` or the stored strong ETag, `W/` or not (RFC 9110's weak comparison),
/// as `HTTPCaching.notModified` answers. Inserts are refused exactly when the key is there, empty or too
/// long, the body too large, or the generation not current. The table's counts are the model's and within
/// its bounds, each body reads back whole, and every body is released once, when its entry goes.
enum HotResponsesTarget {
    /// Bodies released by the table: one per entry gone (dropped, evicted, destroyed).
    nonisolated(unsafe) static var released = 0

    static func run(_ bytes: [UInt8]) {
        var input = FuzzBytes(bytes)
        let maxEntries = 1 + input.byte() % 6
        let maxBytes = 16 * (input.byte() % 8)
        guard let table = ts_hot_create(maxEntries, maxBytes) else { return }
        var model = HotModel()
        released = 0
        while !input.isEmpty {
            switch input.byte() % 5 {
            case 0: insert(table, &input, &model, maxBytes: maxBytes)
            case 1:
                let group = "g\(input.byte() % 3)"
                ts_hot_drop_group(table, group)
                model.entries = model.entries.filter { $0.value.group != group }
            case 2: request(table, &input, model, target: nil)
            default:
                // The target of a key inserted before, split into path and arguments as libmicrohttpd splits it.
                let keys = model.inserted
                request(table, &input, model, target: keys.isEmpty ? nil : keys[input.byte() % keys.count])
            }
            check(table, model, maxEntries: maxEntries, maxBytes: maxBytes)
        }
        ts_hot_destroy(table)
        FuzzCheck.require(released == model.insertCount, "\(released) bodies released of \(model.insertCount) inserted")
    }

    static func insert(_ table: OpaquePointer, _ input: inout FuzzBytes, _ model: inout HotModel, maxBytes: Int) {
        let key = input.text()
        let group = "g\(input.byte() % 3)"
        // An ETag as the application makes them: strong, ASCII (etagc without the comma the parsers split on).
        let opaque = input.text().utf8.filter { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x2C }
        let etag = "\"" + String(decoding: opaque, as: UTF8.self) + "\""
        let size = input.byte() % 40
        let generationShift = [0, 0, 0, -1, 1][input.byte() % 5]
        let current = ts_hot_generation(table)
        let generation = current &+ UInt64(bitPattern: Int64(generationShift))
        let body = malloc(max(size, 1))!
        for offset in 0..<size { body.storeBytes(of: UInt8(truncatingIfNeeded: offset &* 7 &+ key.utf8.count), toByteOffset: offset, as: UInt8.self) }
        let names = ["Content-Type", "ETag"], values = ["image/jpeg", etag]
        let inserted = withCStrings(names) { names in
            withCStrings(values) { values in
                ts_hot_insert(table, generation, key, group, etag, names, values, 2, body, size, body, releaseBody)
            }
        }
        let expected = generation == current && model.entries[Array(key.utf8)] == nil && !key.isEmpty
            && key.utf8.count < Int(TS_HOT_MAX_TARGET) && size <= maxBytes
        FuzzCheck.require((inserted == 1) == expected, "insert of \(key.debugDescription) answered \(inserted)")
        guard inserted == 1 else {
            free(body)
            return
        }
        model.insertCount += 1
        model.entries[Array(key.utf8)] = HotModel.Entry(key: key, group: group, etag: etag, size: size, sum: (0..<size).reduce(0) {
            $0 + UInt64(body.load(fromByteOffset: $1, as: UInt8.self))
        })
        model.inserted.append(key)
        // Evicted to make room: whatever the table no longer finds (probing is the same lookup a request makes).
        for (bytes, other) in model.entries where other.key != key {
            var sum: UInt64 = 0
            if ts_hot_probe(table, other.key, &sum) == 0 { model.entries[bytes] = nil }
        }
    }

    static func request(_ table: OpaquePointer, _ input: inout FuzzBytes, _ model: HotModel, target: String?) {
        let method = ["GET", "HEAD", "GET", "POST", "get", "HEAD "][input.byte() % 6]
        var url = input.text()
        var arguments: [(name: String, value: String?)] = []
        if let target {
            let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            url = String(parts[0])
            for argument in parts.count > 1 ? parts[1].split(separator: "&", omittingEmptySubsequences: false) : [] {
                let pair = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                arguments.append((String(pair[0]), pair.count > 1 ? String(pair[1]) : nil))
            }
        } else {
            for _ in 0..<(input.byte() % 4) {
                arguments.append((input.text(), input.byte() % 3 == 0 ? nil : input.text()))
            }
        }
        var headers: [(name: String, value: String)] = []
        for _ in 0..<(input.byte() % 4) {
            let name = ["If-None-Match", "if-none-match", "Content-Length", "transfer-encoding", "Accept", "X"][input.byte() % 6]
            headers.append((name, ifNoneMatch(&input, model)))
        }

        var lookedUp = [CChar](repeating: 0, count: Int(TS_HOT_MAX_TARGET))
        var length = 0
        let status = withCStrings(arguments.map(\.name)) { names in
            withOptionalCStrings(arguments.map(\.value)) { values in
                withCStrings(headers.map(\.name)) { headerNames in
                    withCStrings(headers.map(\.value)) { headerValues in
                        ts_hot_decide(table, method, url, names, values, UInt32(arguments.count), headerNames,
                                      headerValues, UInt32(headers.count), &lookedUp, &length)
                    }
                }
            }
        }

        let validators = headers.filter { $0.name.lowercased() == "if-none-match" }.map(\.value)
        let eligible = (method == "GET" || method == "HEAD")
            && !headers.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
            && validators.count <= 1 && validators.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
        var rebuilt = url
        for (index, argument) in arguments.enumerated() {
            rebuilt += (index == 0 ? "?" : "&") + argument.name + (argument.value.map { "=" + $0 } ?? "")
        }
        guard eligible && rebuilt.utf8.count < Int(TS_HOT_MAX_TARGET) else {
            FuzzCheck.require(status == 0 && length == 0, "\(method) \(rebuilt.debugDescription) looked up (\(status))")
            return
        }
        // Bytes, not Strings: Swift's String equality is Unicode's canonical equivalence, C's is memcmp.
        let key = lookedUp[..<length].map { UInt8(bitPattern: $0) }
        FuzzCheck.require(key == Array(rebuilt.utf8),
                          "looked up \(String(decoding: key, as: UTF8.self).debugDescription) for \(rebuilt.debugDescription)")
        guard let entry = model.entries[key] else {
            FuzzCheck.require(status == 0, "answered \(status) for \(rebuilt.debugDescription), not in the table")
            return
        }
        let validator = validators.first
        let matches = validator.map { header in
            header.split(separator: ",", omittingEmptySubsequences: false).contains { member in
                let tag = member.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                return tag == "*" || tag == entry.etag || tag == "W/" + entry.etag
            }
        } ?? false
        FuzzCheck.require(status == (matches ? 304 : 200),
                          "answered \(status) for \(rebuilt.debugDescription), If-None-Match \(validator.debugDescription) against \(entry.etag)")
        if let validator {
            let swift = HTTPCaching.notModified(Request(method: "GET", rawPath: "/", headers: ["if-none-match": validator]),
                                                etag: entry.etag)
            FuzzCheck.require(swift == matches, "HTTPCaching.notModified says \(swift) for \(validator.debugDescription)")
        }
    }

    /// An `If-None-Match` value: text from the input, or a list of stored ETags, `*`, weak tags and noise.
    static func ifNoneMatch(_ input: inout FuzzBytes, _ model: HotModel) -> String {
        let shape = input.byte()
        guard shape % 2 == 1 else { return input.text() }
        let etags = model.entries.values.map(\.etag).sorted()
        var members: [String] = []
        for number in 0..<(1 + shape / 2 % 4) {
            let choice = input.byte()
            let etag = etags.isEmpty ? "\"x\"" : etags[choice / 8 % etags.count]
            let member = [etag, "W/" + etag, "*", "\"other\"", "w/" + etag, String(etag.dropLast()), " W/" + etag + " "][choice % 7]
            members.append((number % 2 == 0 ? "" : "\t ") + member)
        }
        return members.joined(separator: ",")
    }

    static func check(_ table: OpaquePointer, _ model: HotModel, maxEntries: Int, maxBytes: Int) {
        var entries = 0, bytes = 0
        var hits: UInt64 = 0
        ts_hot_counts(table, &entries, &bytes, &hits)
        let modelBytes = model.entries.values.reduce(0) { $0 + $1.size }
        FuzzCheck.require(entries == model.entries.count && bytes == modelBytes,
                          "table holds \(entries) entries, \(bytes) bytes; the model \(model.entries.count), \(modelBytes)")
        FuzzCheck.require(entries <= maxEntries && bytes <= maxBytes, "\(entries) entries, \(bytes) bytes over the bounds")
        FuzzCheck.require(released == model.insertCount - entries, "\(released) released, \(entries) of \(model.insertCount) held")
        for entry in model.entries.values {
            var sum: UInt64 = 0
            FuzzCheck.require(ts_hot_probe(table, entry.key, &sum) == 1 && sum == entry.sum,
                              "\(entry.key.debugDescription) reads back wrong")
        }
    }
}

/// What the hot table must hold.
struct HotModel {
    struct Entry {
        var key: String
        var group: String
        var etag: String
        var size: Int
        var sum: UInt64
    }
    /// By the key's bytes, as the table compares them.
    var entries: [[UInt8]: Entry] = [:]
    /// Every key inserted, in order (some since dropped or evicted).
    var inserted: [String] = []
    var insertCount = 0
}

/// The fuzz input read front to back; zeros once it runs out.
struct FuzzBytes {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isEmpty: Bool { index >= bytes.count }

    mutating func byte() -> Int {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return Int(bytes[index])
    }

    /// A length byte, then that many bytes (no NUL: C strings end there), as UTF-8 with repairs.
    mutating func text() -> String {
        let length = byte()
        let end = min(bytes.count, index + length)
        defer { index = end }
        return String(decoding: bytes[index..<end].filter { $0 != 0 }, as: UTF8.self)
    }
}

/// The table's release for a body the harness allocated.
private func releaseBody(_ owner: UnsafeMutableRawPointer?) {
    HotResponsesTarget.released += 1
    free(owner)
}

/// `strings` as an array of C strings for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) }, body)
}

private func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let copies = strings.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { $0.map { UnsafePointer($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
