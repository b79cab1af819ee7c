/// What a batch of inotify events says about each file named in it, read in the order they came.
///
/// Pure bookkeeping (no I/O), so the rules are tested apart from the kernel. The last event about a
/// name decides its state: a file written and then closed, renamed into the folder, or created and
/// not written (a hard link) is `closed`, a whole file unless a writer still holds it open (which
/// `WriterCheck` asks the kernel); a file whose last event is a write is `written`, still arriving.
public struct FolderEvents: Equatable, Sendable {
    /// What the events so far say about one name.
    public enum State: Equatable, Sendable {
        /// Written to, not closed since: a copy still arriving.
        case written
        /// Closed after a write, renamed in, or created without a write: whole, unless a writer still has it open.
        case closed
        /// Only its attributes or times changed (`touch`, `chmod`): looked at by the periodic pass.
        case touched
        /// Removed or renamed away.
        case removed
    }

    // From <sys/inotify.h>; spelled out because Swift imports the macros with varying types.
    public static let modify: UInt32 = 0x0000_0002
    public static let attributes: UInt32 = 0x0000_0004
    public static let closeWrite: UInt32 = 0x0000_0008
    public static let movedFrom: UInt32 = 0x0000_0040
    public static let movedTo: UInt32 = 0x0000_0080
    public static let create: UInt32 = 0x0000_0100
    public static let delete: UInt32 = 0x0000_0200
    public static let deleteSelf: UInt32 = 0x0000_0400
    public static let moveSelf: UInt32 = 0x0000_0800
    public static let overflow: UInt32 = 0x0000_4000
    public static let ignored: UInt32 = 0x0000_8000
    /// The events the folder is watched for.
    public static let watched = modify | attributes | closeWrite | movedFrom | movedTo | create | delete | deleteSelf | moveSelf

    public private(set) var states: [String: State] = [:]
    /// Events were lost (a full kernel queue) or the watch ended: only a full scan knows what changed.
    public private(set) var lostTrack = false

    public init() {}

    /// Takes in one event (`name` empty for events about the folder itself).
    public mutating func record(mask: UInt32, name: String) {
        if mask & (Self.overflow | Self.ignored | Self.deleteSelf | Self.moveSelf) != 0 { lostTrack = true }
        guard !name.isEmpty else { return }
        if mask & (Self.delete | Self.movedFrom) != 0 {
            states[name] = .removed
        } else if mask & Self.modify != 0 {
            // A write after a close (or several in one event) reopens the question.
            states[name] = .written
        } else if mask & (Self.closeWrite | Self.movedTo | Self.create) != 0 {
            states[name] = .closed
        } else if mask & Self.attributes != 0, states[name] == nil {
            states[name] = .touched
        }
    }

    /// Names that may be whole files now (to be proven by `WriterCheck` before they are built).
    public var closed: Set<String> { Set(states.filter { $0.value == .closed }.keys) }

    /// Whether the folder should be looked at now rather than at the next periodic pass: a file may
    /// have arrived whole or one went away. Writes in progress wait for their close, or for the pass.
    public var wantsLookNow: Bool {
        lostTrack || states.values.contains { $0 == .closed || $0 == .removed }
    }

    /// The same events as the periodic pass sees them: the names, or everything.
    public var change: FolderChange {
        if lostTrack { return .everything }
        return states.isEmpty ? .nothing : .names(Set(states.keys))
    }
}
