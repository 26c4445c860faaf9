import Foundation

/// One refresh in flight per key for one client: concurrent callers asking for the same scope
/// set share it, a caller whose task is cancelled leaves at once, and a refresh nobody waits for
/// any more is cancelled.
///
/// Each client has its own coalescer, so unrelated clients in one process never wait for each
/// other; the refreshes of one account (across clients on one store) still run one after
/// another through ``RefreshCoordinator``.
actor RefreshCoalescer {
    typealias Outcome = Result<TokenResult, RetrieveAccessTokenError>

    private let log: Log
    /// The refresh in flight for each key.
    private var flights: [String: UUID] = [:]
    /// The task of each refresh in flight, cancelled when no caller waits for it any more.
    private var tasks: [UUID: (key: String, task: Task<Void, Never>)] = [:]
    /// Callers waiting for each refresh.
    private var waiters: [UUID: [UUID: CheckedContinuation<Outcome, Never>]] = [:]

    init(log: Log) { self.log = log }

    /// The outcome of the refresh in flight for `key`, or of `refresh`, started now as that
    /// refresh, after every earlier refresh of `account` in the process.
    func join(_ key: String, account: String, refresh: @escaping @Sendable () async -> Outcome) async -> Outcome {
        let refreshId: UUID
        if let running = flights[key] {
            refreshId = running
        } else {
            refreshId = UUID()
            flights[key] = refreshId
            // Not a child of any caller: a caller that gives up does not cancel it for the others.
            // It is cancelled when the last caller has left (see `leave`).
            let task = Task {
                let result = await RefreshCoordinator.shared.serialize(key: account, refresh)
                self.finish(refreshId, key: key, result: result)
            }
            tasks[refreshId] = (key, task)
        }
        return await wait(for: refreshId)
    }

    private func wait(for refreshId: UUID) async -> Outcome {
        let waiterId = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(
                        returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
                } else {
                    waiters[refreshId, default: [:]][waiterId] = continuation
                }
            }
        } onCancel: {
            Task { await self.leave(refreshId, waiter: waiterId) }
        }
    }

    private func leave(_ refreshId: UUID, waiter: UUID) {
        guard let continuation = waiters[refreshId]?.removeValue(forKey: waiter) else { return }
        continuation.resume(returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
        // Nobody waits for this refresh any more: it ends, so that a stuck one holds nobody up and
        // the next caller starts a fresh one.
        guard waiters[refreshId]?.isEmpty ?? true, let running = tasks.removeValue(forKey: refreshId) else { return }
        waiters[refreshId] = nil
        if flights[running.key] == refreshId { flights[running.key] = nil }
        running.task.cancel()
        log(.debug, "refresh abandoned by every caller; cancelled")
    }

    private func finish(_ refreshId: UUID, key: String, result: Outcome) {
        tasks[refreshId] = nil
        if flights[key] == refreshId { flights[key] = nil }
        for continuation in (waiters.removeValue(forKey: refreshId) ?? [:]).values {
            continuation.resume(returning: result)
        }
    }
}
