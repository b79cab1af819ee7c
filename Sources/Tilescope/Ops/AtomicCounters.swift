import Synchronization

/// A fixed table of integer counters that any thread can bump without a lock: the hot
/// path of every request adds to a few of them, a scrape reads them all.
final class AtomicCounters: @unchecked Sendable {
    let count: Int
    private let slots: UnsafeMutablePointer<Atomic<Int>>

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        for index in 0..<count { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Relaxed: counters need no ordering with anything else, only no lost updates.
    func add(_ index: Int, _ amount: Int = 1) {
        slots[index].add(amount, ordering: .relaxed)
    }

    subscript(index: Int) -> Int { slots[index].load(ordering: .relaxed) }
}
