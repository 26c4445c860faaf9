extension AccountManager {
    /// Waits for this client's turn to write the store, first come first served.
    func beginStoreWrite() async {
        guard storeBusy else {
            storeBusy = true
            return
        }
        await withCheckedContinuation { storeWaiters.append($0) }
    }

    /// Ends a store write and hands the turn to the next one waiting.
    func endStoreWrite() {
        if storeWaiters.isEmpty {
            storeBusy = false
        } else {
            storeWaiters.removeFirst().resume()
        }
    }
}
