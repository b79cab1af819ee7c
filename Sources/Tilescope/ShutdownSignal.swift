import Foundation

/// Waits for SIGINT, SIGTERM or SIGHUP. A second signal during shutdown exits at once.
///
/// Installed before the server starts listening: a signal that arrives while it starts (a
/// supervisor's quick stop, a loaded machine) is then held for `wait()` instead of killing the
/// process unlogged with the default action.
public final class ShutdownSignal: @unchecked Sendable {
    private let first = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceSignal] = []

    /// Takes over the three signals from now on.
    public static func install() -> ShutdownSignal {
        let shutdown = ShutdownSignal()
        let queue = DispatchQueue(label: "signals")
        let count = SignalCount()
        let first = shutdown.first
        // SIGHUP (a closed terminal, or a supervisor asking for a reload) drains like SIGTERM: there
        // is nothing to reload that a rescan does not already pick up, and dying unlogged is worse.
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: { @Sendable in
                if count.increment() == 1 {
                    Log.info("\(signalName(number)) received: stopping")
                    first.signal()
                } else {
                    Log.error("second signal: exiting at once")
                    exit(1)
                }
            })
            source.resume()
            shutdown.sources.append(source)
        }
        return shutdown
    }

    /// Blocks the calling thread until the first signal has arrived (at once if it already has).
    /// The sources stay alive with this object, for the second-signal exit during shutdown.
    public func wait() {
        first.wait()
    }
}

/// Counts signals; touched only on the signal queue.
private final class SignalCount: @unchecked Sendable {
    private var value = 0
    func increment() -> Int {
        value += 1
        return value
    }
}

private func signalName(_ number: Int32) -> String {
    switch number {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    default: "signal \(number)"
    }
}
