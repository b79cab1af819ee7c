import CHTTPShims
import Glibc

/// Responses the server answers inside libmicrohttpd's access callback, without building a `Request`,
/// routing or touching a file: for hot immutable files (Deep Zoom tiles), whose answer depends on the
/// exact request target and `If-None-Match` alone.
///
/// The application fills it (`Response.reuse`) with responses its own path has just computed, and
/// must drop a group (an image) the moment what those targets answer changes: the table never checks.
/// `generation` closes the race between the two: it is read before the application resolves what the
/// answer is (the current version), and an insert is refused if a drop happened since.
/// Headers are kept as the response had them before `Server-Timing`, which is computed per request;
/// `If-None-Match` against the kept `ETag` gives 304 as `HTTPCaching` would. Entries hold their body
/// (`SharedBytes`) by reference; total bytes and entries are bounded, with CLOCK eviction.
public final class HotResponses: @unchecked Sendable {
    let table: OpaquePointer

    /// Nil if the table cannot be allocated.
    public init?(maxEntries: Int, maxBytes: Int) {
        guard let table = ts_hot_create(max(1, maxEntries), max(0, maxBytes)) else { return nil }
        self.table = table
    }

    deinit { ts_hot_destroy(table) }

    /// Read this before resolving what a response to be reused says (`ReuseKey.generation`).
    public var generation: UInt64 { ts_hot_generation(table) }

    /// Forgets every entry of `group`; an insert whose generation was read before this is refused.
    public func drop(group: String) {
        ts_hot_drop_group(table, group)
    }

    /// Forgets every entry kept with an expiry (`ReuseKey.expires`): their targets' credentials may no longer hold.
    public func dropExpiring() {
        ts_hot_drop_expiring(table)
    }

    /// Entries and body bytes held now, requests answered from the table since start.
    public var counts: (entries: Int, bytes: Int, hits: Int) {
        var entries = 0, bytes = 0
        var hits: UInt64 = 0
        ts_hot_counts(table, &entries, &bytes, &hits)
        return (entries, bytes, Int(clamping: hits))
    }

    /// Looks `target` up as a request would and sums its body's bytes; nil if there is no entry (tests).
    func probe(_ target: String) -> UInt64? {
        var sum: UInt64 = 0
        return ts_hot_probe(table, target, &sum) != 0 ? sum : nil
    }

    /// Keeps `response` (status 200, a `.shared` body, an `ETag`) for `key.target`. False if refused.
    @discardableResult
    func insert(_ key: ReuseKey, headers: [(name: String, value: String)], body: SharedBytes) -> Bool {
        guard let etag = headers.last(where: { ASCII.equalIgnoringCase($0.name, "ETag") })?.value,
              key.target.utf8.count < Int(TS_HOT_MAX_TARGET) else { return false }
        let names = headers.map { strdup($0.name) }
        let values = headers.map { strdup($0.value) }
        defer {
            names.forEach { free($0) }
            values.forEach { free($0) }
        }
        guard !names.contains(nil), !values.contains(nil) else { return false }
        let owner = Unmanaged.passRetained(body).toOpaque()
        let inserted = names.map { UnsafePointer($0) }.withUnsafeBufferPointer { names in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                ts_hot_insert_until(table, key.generation, key.target, key.group, etag, names.baseAddress, values.baseAddress,
                                    UInt32(headers.count), body.base, body.count, owner, releaseHotBody, Int64(key.expires))
            }
        }
        if inserted == 0 { Unmanaged<SharedBytes>.fromOpaque(owner).release() }
        return inserted != 0
    }
}

/// What a response may be reused for: requests whose target is exactly `target` ("/path?query" as
/// sent, escapes included). `group` names what must drop it (an image id); `generation` is
/// `HotResponses.generation` as read before the response was resolved.
public struct ReuseKey: Sendable, Equatable {
    public var target: String
    public var group: String
    public var generation: UInt64
    /// Unix time (seconds) from which the kept response answers nothing (0: never): for targets that carry
    /// a credential with an expiry, which the table checks on every lookup.
    public var expires: Int

    public init(target: String, group: String, generation: UInt64, expires: Int = 0) {
        self.target = target
        self.group = group
        self.generation = generation
        self.expires = expires
    }
}

/// A request answered from `HotResponses`, once libmicrohttpd has completed it.
public struct HotExchange {
    public var status: Int
    public var bytesSent: Int
    public var seconds: Double
    public var completedNormally: Bool
    public var isHead: Bool
    public var hadIfNoneMatch: Bool
    /// The target's bytes in the table entry, valid during `completedHot` only: the string is made
    /// when asked for, so that a request nobody logs costs no allocation.
    let targetBytes: UnsafeRawBufferPointer
    let connection: OpaquePointer?

    /// The request target as sent ("/path?query").
    public var target: String { String(decoding: targetBytes, as: UTF8.self) }

    /// The request as the slow path would have seen it (for an access log): method, path, query,
    /// client address; no headers. Builds strings: call it only when they are needed.
    public var request: Request {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query = QueryArguments()
        for argument in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let pair = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(pair[0], plusIsSpace: true) else { continue }
            query.set(name, pair.count > 1 ? PercentDecoding.decode(pair[1], plusIsSpace: true) ?? "" : "")
        }
        return Request(method: isHead ? "HEAD" : "GET", rawPath: String(parts[0]), query: query, headers: [:],
                       client: connection.map(ClientAddress.init(connection:)) ?? ClientAddress("-"))
    }

    /// The same exchange as the slow path reports it.
    public var completed: CompletedExchange {
        CompletedExchange(request: request, status: status, bytesSent: bytesSent, seconds: seconds,
                          completedNormally: completedNormally)
    }
}

/// libmicrohttpd's release for a hot entry's body: drops the reference the table took.
private func releaseHotBody(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<SharedBytes>.fromOpaque(owner).release()
}
