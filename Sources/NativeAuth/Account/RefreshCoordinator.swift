/// Runs the refreshes of one account one after another, across every client in the process.
///
/// A refresh redeems the refresh token, and the server may rotate it and revoke the old one; two
/// refreshes in flight with the same token (two scope sets, or two clients on one store) would
/// burn it and sign the user out. Serialised, each refresh starts from the token the previous one
/// stored.
actor RefreshCoordinator {
    static let shared = RefreshCoordinator()

    /// The last body queued for each key with one in flight: a list, as there are few.
    private var tails: [(key: String, task: Task<Void, Never>)] = []

    /// Runs `body` after every earlier body for `key` has finished. Not generic: its one use is a
    /// refresh.
    func serialize(key: String, _ body: @escaping @Sendable () async -> RefreshCoalescer.Outcome) async
        -> RefreshCoalescer.Outcome
    {
        let previous = tails.first { $0.key == key }?.task
        let task = Task {
            await previous?.value
            return await body()
        }
        let tail = Task { _ = await task.value }
        tails.removeAll { $0.key == key }
        tails.append((key, tail))
        // A cancelled caller cancels its body (a refresh nobody waits for); the queue still waits
        // for the body to end, which a cancelled request does at once.
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        tails.removeAll { $0.key == key && $0.task == tail }
        return result
    }
}

extension RefreshCoordinator: CustomReflectable {
    /// Nothing: the state is the actor's to read, and a `Mirror` would read it off the actor.
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
