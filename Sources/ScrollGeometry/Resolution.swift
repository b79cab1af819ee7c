/// What the client draws: the whole preview image (`low`) or tiles of one pyramid level (`high`).
public enum Resolution: Hashable, Sendable {
    case low
    case high(level: Int)

    /// `"low"` or `"high"`, as the response spells it.
    public var name: String {
        switch self {
        case .low: "low"
        case .high: "high"
        }
    }

    /// The tile level, `nil` for `low`.
    public var level: Int? {
        switch self {
        case .low: nil
        case .high(let level): level
        }
    }
}
