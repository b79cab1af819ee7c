import Foundation

/// Waits for SIGINT or SIGTERM. A second signal during shutdown exits at once.
public enum ShutdownSignal {
    /// Blocks the calling thread until the first signal arrives.
    public static func wait() {
        let first = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "signals")
        let count = SignalCount()
        var sources: [DispatchSourceSignal] = []
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
            sources.append(source)
        }
        first.wait()
        withExtendedLifetime(sources) {}
        // Keep the sources alive for the second-signal exit during shutdown.
        retained = sources
    }

    nonisolated(unsafe) private static var retained: [DispatchSourceSignal] = []
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
