import Foundation

/// The moment a request is signed, in SigV4's two spellings: `20150830T123600Z` (`x-amz-date`)
/// and `20150830` (the credential scope's day).
public struct SigV4Timestamp: Sendable, Equatable {
    public let amzDate: String
    public var day: String { String(amzDate.prefix(8)) }

    public init(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        amzDate = String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                         Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// From an `x-amz-date` value such as `20150830T123600Z`; nil if it is not one.
    public init?(amzDate: String) {
        let bytes = Array(amzDate.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
              bytes[0..<8].allSatisfy({ $0 >= 48 && $0 <= 57 }), bytes[9..<15].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        self.amzDate = amzDate
    }
}
