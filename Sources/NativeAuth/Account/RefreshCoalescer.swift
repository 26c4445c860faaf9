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
actor RefreshCoalescer {
    typealias Outcome = Result<TokenResult, RetrieveAccessTokenError>

    private let log: Log
    /// The refresh in flight for each key.
    private var flights: [String: UUID] = [:]
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
            // Not a child of any caller: a caller that gives up cancels it neither for the others
            // nor for the store, which keeps what it brings.
            Task {
                let result = await RefreshCoordinator.shared.serialize(key: account, refresh)
                self.finish(refreshId, key: key, result: result)
            }
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
        if waiters[refreshId]?.isEmpty ?? true { log(.debug, "refresh left by every caller; it runs on for the store") }
    }

    private func finish(_ refreshId: UUID, key: String, result: Outcome) {
        if flights[key] == refreshId { flights[key] = nil }
        for continuation in (waiters.removeValue(forKey: refreshId) ?? [:]).values {
            continuation.resume(returning: result)
        }
    }
}
