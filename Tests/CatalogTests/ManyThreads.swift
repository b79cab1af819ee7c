import Foundation

/// Runs `body(0..<count)` on `count` threads of their own, released together, and waits for all of them.
/// (`DispatchQueue.concurrentPerform` would use only one thread per core.)
func onManyThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let gate = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            gate.wait()
            body(index)
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { gate.signal() }
    done.wait()
}
