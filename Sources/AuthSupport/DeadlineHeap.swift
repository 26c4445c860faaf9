/// A min-heap of deadlines, each with an id: the loopback server's connection timers and the
/// process's request deadlines. An entry whose deadline moved or was cancelled is left in place
/// and skipped when it comes up (its owner knows), so a move or a cancellation costs nothing here.
package struct DeadlineHeap<Deadline: Comparable> {
    private var entries: [(at: Deadline, id: UInt64)] = []

    /// An empty heap.
    package init() {}

    /// The earliest entry.
    package var first: (at: Deadline, id: UInt64)? { entries.first }

    /// How many entries the heap holds, skipped ones included.
    package var count: Int { entries.count }

    package mutating func insert(at: Deadline, id: UInt64) {
        entries.append((at, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].at < entries[parent].at else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest entry; nothing when the heap is empty.
    package mutating func removeFirst() {
        guard let last = entries.popLast() else { return }
        guard !entries.isEmpty else { return }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let child = right < entries.count && entries[right].at < entries[left].at ? right : left
            guard entries[child].at < entries[parent].at else { return }
            entries.swapAt(child, parent)
            parent = child
        }
    }

    /// Keeps only the entries whose id `keep` accepts, in a heap built anew.
    package mutating func compact(keeping keep: (UInt64) -> Bool) {
        let live = entries.filter { keep($0.id) }
        entries = []
        entries.reserveCapacity(live.count)
        for entry in live { insert(at: entry.at, id: entry.id) }
    }
}

extension DeadlineHeap: Sendable where Deadline: Sendable {}
