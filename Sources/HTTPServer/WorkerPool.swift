import CHTTPShims
import Foundation

/// A fixed set of threads running submitted work in order: bounded parallelism for
/// rendering, unlike a concurrent queue that grows a thread per blocked task.
public final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var threads: [Thread] = []

    public init(threads count: Int, name: String = "worker") {
        for index in 0..<max(1, count) {
            // A strong reference: a thread may start after its owner is gone (a server that
            // failed to start, say), and `unowned` then traps. The pool lives until its threads end.
            let threadName = "\(name)-\(index)"
            let thread = Thread {
                // Foundation keeps `Thread.name` to itself on Linux: the kernel's name is what top, perf and
                // /proc show (they showed "-qos.overcommit" for every worker).
                ts_set_thread_name(threadName)
                self.run()
            }
            thread.name = threadName
            thread.stackSize = 1 << 20
            threads.append(thread)
            thread.start()
        }
    }

    public func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Lets queued work finish, then ends the threads.
    public func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while let work = next() { work() }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count && !stopping { condition.wait() }
        guard head < queue.count else { return nil }
        let work = queue[head]
        head += 1
        if head > 1024 && head * 2 > queue.count {  // compact now and then
            queue.removeFirst(head)
            head = 0
        }
        return work
    }
}
