import Foundation

/// One refresh in flight per key for one client: concurrent callers asking for the same scope
/// set share it, and a caller whose task is cancelled leaves at once.
///
/// A refresh nobody waits for any more still runs to its end, bounded by the request deadline,
/// and its tokens are stored: once its request is sent, the server may have rotated the refresh
/// token (and revoked the old one), and only its answer holds the new one. A caller who comes
/// meanwhile joins it instead of redeeming the same refresh token a second time.
///
/// Each client has its own coalescer, so unrelated clients in one process never wait for each
/// other; the refreshes of one account (across clients on one store) still run one after
/// another through ``RefreshCoordinator``.
///
/// A refresh that needs the person's confirmation first asks for it, before taking its turn: a
/// prompt holds up no other refresh, and a refresh still waiting for the person sends nothing, so
/// when the last caller has left it, it is dropped and the prompt cancelled.
actor RefreshCoalescer {
    typealias Outcome = Result<TokenResult, RetrieveAccessTokenError>

    private let log: Log
    /// The refresh in flight for each key.
    private var flights: [String: UUID] = [:]
    /// Callers waiting for each refresh.
    private var waiters: [UUID: [(id: UUID, continuation: CheckedContinuation<Outcome, Never>)]] = [:]
    /// The refreshes still waiting for the person's confirmation, with their key and task.
    private var confirming: [UUID: (key: String, task: Task<Void, Never>)] = [:]

    init(log: Log) { self.log = log }

    /// The outcome of the refresh in flight for `key`, or of `refresh`, started now as that
    /// refresh, after every earlier refresh of `account` in the process. `confirm`, when given,
    /// runs first and ends the refresh with the error it returns.
    func join(
        _ key: String, account: String, confirm: (@Sendable () async -> RetrieveAccessTokenError?)? = nil,
        refresh: @escaping @Sendable () async -> Outcome
    ) async -> Outcome {
        let refreshId: UUID
        if let running = flights[key] {
            refreshId = running
        } else {
            refreshId = UUID()
            flights[key] = refreshId
            // Not a child of any caller: a caller that gives up cancels it neither for the others
            // nor for the store, which keeps what it brings.
            let task = Task {
                if let confirm {
                    if let refused = await confirm() {
                        return self.finish(refreshId, key: key, result: .failure(refused))
                    }
                    // Dropped while the person was asked: nobody waits, and nothing was sent.
                    guard self.beginRefresh(refreshId) else { return }
                }
                let result = await RefreshCoordinator.shared.serialize(key: account, refresh)
                self.finish(refreshId, key: key, result: result)
            }
            if confirm != nil { confirming[refreshId] = (key, task) }
        }
        return await wait(for: refreshId)
    }

    /// Whether a refresh that was confirmed is still wanted; from now on it runs to its end.
    private func beginRefresh(_ refreshId: UUID) -> Bool {
        confirming.removeValue(forKey: refreshId) != nil
    }

    /// Drops a refresh still waiting for the person's confirmation once nobody waits for it: its
    /// task is cancelled (which ends the prompt), and a later caller starts a refresh of its own.
    private func dropIfUnwanted(_ refreshId: UUID) {
        guard waiters[refreshId]?.isEmpty ?? true, let dropped = confirming.removeValue(forKey: refreshId) else {
            return
        }
        if flights[dropped.key] == refreshId { flights[dropped.key] = nil }
        waiters[refreshId] = nil
        dropped.task.cancel()
        log(.debug, "refresh left by every caller before the confirmation; dropped")
    }

    /// How many callers wait for a refresh, over every refresh in flight (for tests).
    var waiterCount: Int { waiters.values.reduce(0) { $0 + $1.count } }

    private func wait(for refreshId: UUID) async -> Outcome {
        let waiterId = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(
                        returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
                    dropIfUnwanted(refreshId)
                } else {
                    waiters[refreshId, default: []].append((waiterId, continuation))
                }
            }
        } onCancel: {
            Task { await self.leave(refreshId, waiter: waiterId) }
        }
    }

    private func leave(_ refreshId: UUID, waiter: UUID) {
        guard let index = waiters[refreshId]?.firstIndex(where: { $0.id == waiter }),
            let continuation = waiters[refreshId]?.remove(at: index).continuation
        else { return }
        continuation.resume(returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
        guard waiters[refreshId]?.isEmpty ?? true else { return }
        if confirming[refreshId] != nil { return dropIfUnwanted(refreshId) }
        log(.debug, "refresh left by every caller; it runs on for the store")
    }

    private func finish(_ refreshId: UUID, key: String, result: Outcome) {
        if flights[key] == refreshId { flights[key] = nil }
        confirming[refreshId] = nil
        for waiter in waiters.removeValue(forKey: refreshId) ?? [] {
            waiter.continuation.resume(returning: result)
        }
    }
}

extension RefreshCoalescer: CustomReflectable {
    /// Nothing: the state is the actor's to read, and a `Mirror` would read it off the actor.
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
