/// A min-heap of deadlines by connection id. A connection's deadline moves often; the old entry
/// stays until it comes up and is skipped, so a move costs one insertion.
struct LoopbackDeadlineHeap {
    private var entries: [(at: ContinuousClock.Instant, id: UInt64)] = []

    /// The earliest entry.
    var first: (at: ContinuousClock.Instant, id: UInt64)? { entries.first }

    mutating func insert(at: ContinuousClock.Instant, id: UInt64) {
        entries.append((at, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].at < entries[parent].at else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest entry; the heap must not be empty.
    mutating func removeFirst() {
        let last = entries.removeLast()
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
}
