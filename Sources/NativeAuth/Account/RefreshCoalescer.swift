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
    /// The refreshes in flight: a list, as there are few.
    private var flights: [Flight] = []

    /// One refresh in flight and the callers waiting for it.
    private final class Flight {
        let key: String
        var waiters: [(id: UUID, continuation: CheckedContinuation<Outcome, Never>)] = []
        /// The refresh's task while it waits for the person's confirmation.
        var confirming: Task<Void, Never>?

        init(key: String) { self.key = key }
    }

    init(log: Log) { self.log = log }

    /// The outcome of the refresh in flight for `key`, or of `refresh`, started now as that
    /// refresh, after every earlier refresh of `account` in the process. `confirm`, when given,
    /// runs first and ends the refresh with the error it returns.
    func join(
        _ key: String, account: String, confirm: (@Sendable () async -> RetrieveAccessTokenError?)? = nil,
        refresh: @escaping @Sendable () async -> Outcome
    ) async -> Outcome {
        // One wait for a running refresh and a new one: an await under a condition has the
        // compiler copy what follows it.
        let flight = flights.first { $0.key == key } ?? start(key, account: account, confirm: confirm, refresh: refresh)
        return await wait(for: flight)
    }

    /// Starts the refresh of `key` as ``join(_:account:confirm:refresh:)`` describes it.
    private func start(
        _ key: String, account: String, confirm: (@Sendable () async -> RetrieveAccessTokenError?)?,
        refresh: @escaping @Sendable () async -> Outcome
    ) -> Flight {
        let flight = Flight(key: key)
        flights.append(flight)
        // Not a child of any caller: a caller that gives up cancels it neither for the others
        // nor for the store, which keeps what it brings.
        let task = Task {
            if let confirm {
                if let refused = await confirm() {
                    return self.finish(flight, result: .failure(refused))
                }
                // Dropped while the person was asked: nobody waits, and nothing was sent.
                guard self.beginRefresh(flight) else { return }
            }
            let result = await RefreshCoordinator.shared.serialize(key: account, refresh)
            self.finish(flight, result: result)
        }
        if confirm != nil { flight.confirming = task }
        return flight
    }

    /// Whether a refresh that was confirmed is still wanted; from now on it runs to its end.
    private func beginRefresh(_ flight: Flight) -> Bool {
        defer { flight.confirming = nil }
        return flight.confirming != nil
    }

    /// Drops a refresh still waiting for the person's confirmation once nobody waits for it: its
    /// task is cancelled (which ends the prompt), and a later caller starts a refresh of its own.
    private func dropIfUnwanted(_ flight: Flight) {
        guard flight.waiters.isEmpty, let task = flight.confirming else { return }
        flight.confirming = nil
        flights.removeAll { $0 === flight }
        task.cancel()
        log(.debug, "refresh left by every caller before the confirmation; dropped")
    }

    /// How many callers wait for a refresh, over every refresh in flight (for tests).
    var waiterCount: Int { flights.reduce(0) { $0 + $1.waiters.count } }

    private func wait(for flight: Flight) async -> Outcome {
        let waiterId = UUID()
        let flightId = ObjectIdentifier(flight)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(
                        returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
                    dropIfUnwanted(flight)
                } else {
                    flight.waiters.append((waiterId, continuation))
                }
            }
        } onCancel: {
            Task { await self.leave(flightId, waiter: waiterId) }
        }
    }

    private func leave(_ flightId: ObjectIdentifier, waiter: UUID) {
        guard let flight = flights.first(where: { ObjectIdentifier($0) == flightId }),
            let index = flight.waiters.firstIndex(where: { $0.id == waiter })
        else { return }
        flight.waiters.remove(at: index).continuation.resume(
            returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
        guard flight.waiters.isEmpty else { return }
        if flight.confirming != nil { return dropIfUnwanted(flight) }
        log(.debug, "refresh left by every caller; it runs on for the store")
    }

    private func finish(_ flight: Flight, result: Outcome) {
        flights.removeAll { $0 === flight }
        flight.confirming = nil
        let waiters = flight.waiters
        flight.waiters = []
        for waiter in waiters { waiter.continuation.resume(returning: result) }
    }
}

extension RefreshCoalescer: CustomReflectable {
    /// Nothing: the state is the actor's to read, and a `Mirror` would read it off the actor.
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
