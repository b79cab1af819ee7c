import Foundation
import Synchronization

/// Where one build's time and memory went, phase by phase, so that a regression shows in the phase where it
/// happens rather than only in the total (issue 43: a photo's fixed cost is spread over many small steps).
///
/// Times are exclusive: a phase entered inside another (the flush inside a publish) stops the outer one's
/// clock, so the phases add up to the time measured. Memory is the largest anonymous resident size
/// (`RssAnon`, what bench/ compares with `vips dzsave`) seen at the end of each phase and, during a pass, at
/// every percent of its progress: a sample, not the kernel's peak (it keeps none of anonymous memory here).
///
/// The builder, the publisher and the store report into the `current` one, bound for the build by its
/// caller (`measuring`), so the store's protocol carries no clock; with none bound, reporting costs a
/// thread-local read and nothing is recorded.
public final class BuildPhases: @unchecked Sendable {
    /// The steps of a build, in the order they first happen.
    public enum Phase: String, CaseIterable, Sendable {
        /// Taking the build's lock, checking for a published version, making the staging folder.
        case prepare
        /// Opening the source: its header, orientation, ICC profile and colour pipeline.
        case open
        /// A JPEG's reduced decode for the preview level (the preview before the full pass).
        case previewDecode = "preview-decode"
        /// Writing the base: the preview, the coarse levels and the descriptor.
        case base
        /// The full pass: the source decoded and every level cut and encoded (dzsave), as one stream.
        case levels
        /// A transparent source's second pass (its PNG tiles).
        case alpha
        /// Handing parts over: the source's fingerprint checked, manifests written, folders renamed.
        case publish
        /// Waiting for the disk: the flushes before the complete manifest, and its own.
        case flush
        /// Removing the staging folder and older versions.
        case cleanup
    }

    /// What a build reports into; bound by `measuring`.
    @TaskLocal public static var current: BuildPhases?

    private struct State {
        var seconds: [Phase: Double] = [:]
        var peakAnonymousKB: [Phase: Int] = [:]
        var stack: [Phase] = []
        var since = 0.0
    }

    private let state = Mutex(State())

    public init() {}

    /// Runs `work` with this as the build's `current` phases.
    public func measuring<T>(_ work: () throws -> T) rethrows -> T {
        try Self.$current.withValue(self, operation: work)
    }

    /// Runs `work` as `phase` of the current build, if one is measured.
    public static func timing<T>(_ phase: Phase, _ work: () throws -> T) rethrows -> T {
        guard let phases = current else { return try work() }
        phases.enter(phase)
        defer { phases.leave(phase) }
        return try work()
    }

    /// Counts `seconds` spent outside `timing` (before the phases were bound) as `phase`.
    public func add(_ phase: Phase, seconds: Double) {
        state.withLock { $0.seconds[phase, default: 0] += seconds }
    }

    /// Samples the anonymous memory into the phase running (from a pass's progress, any thread).
    public func sampleMemory() {
        let kilobytes = ResidentMemory.anonymousKB()
        state.withLock { state in
            guard let phase = state.stack.last else { return }
            state.peakAnonymousKB[phase] = max(state.peakAnonymousKB[phase] ?? 0, kilobytes)
        }
    }

    public func seconds(_ phase: Phase) -> Double { state.withLock { $0.seconds[phase] ?? 0 } }
    public func peakAnonymousKB(_ phase: Phase) -> Int? { state.withLock { $0.peakAnonymousKB[phase] } }

    /// `phases: prepare 0.001 s, open 0.004 s (RssAnon 21 MB), ...`: the phases that ran, in order, each with
    /// the largest anonymous memory seen in it. One line, for logs (bench/ reads it).
    public var summary: String {
        state.withLock { state in
            let parts = Phase.allCases.compactMap { phase -> String? in
                guard let seconds = state.seconds[phase] else { return nil }
                var part = "\(phase.rawValue) " + String(format: "%.3f s", seconds)
                if let kilobytes = state.peakAnonymousKB[phase] { part += " (RssAnon \(kilobytes / 1024) MB)" }
                return part
            }
            return "phases: " + parts.joined(separator: ", ")
        }
    }

    private func enter(_ phase: Phase) {
        let now = ProgressClock.now()
        state.withLock { state in
            if let outer = state.stack.last { state.seconds[outer, default: 0] += now - state.since }
            state.stack.append(phase)
            state.since = now
        }
    }

    private func leave(_ phase: Phase) {
        let now = ProgressClock.now()
        let kilobytes = ResidentMemory.anonymousKB()
        state.withLock { state in
            state.seconds[phase, default: 0] += now - state.since
            state.peakAnonymousKB[phase] = max(state.peakAnonymousKB[phase] ?? 0, kilobytes)
            state.stack.removeLast()
            state.since = now
        }
    }
}
