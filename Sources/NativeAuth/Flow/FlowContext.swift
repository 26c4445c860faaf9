import Foundation

/// What every step of one flow shares: the client, the correlation id, who is signing in, and
/// the scopes to ask for at the end.
struct FlowContext: Sendable {
    let client: ClientCore
    let correlationId: UUID
    let username: String
    let scopes: [String]
    /// An OIDC claims request sent with the flow's token request.
    var claims: String? = nil

    /// Sends `call` and decodes its answer, mapping any failure to the step's error type `E`.
    func request<T, E: DetailedError>(
        _ call: WireCall, as errorType: E.Type = E.self, classify: (ServerError) -> ErrorKind?,
        decode: (WireClient.Reply) throws(WireFailure) -> T
    ) async throws(E) -> T {
        do {
            let reply = try await client.wire.send(call, correlationId: correlationId)
            return try reply.decode(decode)
        } catch {
            throw E(error, correlationId: correlationId, classify: classify)
        }
    }

    /// Sends a call whose only expected answer is a code sent out of band.
    func requestCode<E: DetailedError>(
        _ call: WireCall, as errorType: E.Type = E.self, classify: (ServerError) -> ErrorKind? = { _ in nil }
    ) async throws(E) -> CodeChallenge {
        try await request(call, as: E.self, classify: classify) { reply throws(WireFailure) in
            try ChallengeAnswer(reply.object).codeChallenge()
        }
    }

    /// Checks that a claims request is a JSON object, before anything is sent.
    static func validClaims<E: DetailedError>(_ claims: String?, correlationId: UUID, as errorType: E.Type) throws(E)
        -> String?
    {
        guard let claims = claims?.trimmingCharacters(in: .whitespacesAndNewlines), !claims.isEmpty else { return nil }
        guard let value = try? JSONValue.parse(Data(claims.utf8)), value.objectValue != nil else {
            throw E(.invalidArgument, correlationId: correlationId, note: "The claims request is not a JSON object.")
        }
        return claims
    }

    func fail<E: DetailedError>(_ kind: ErrorKind, _ errorType: E.Type = E.self, note: String) -> E {
        client.log(.debug, "request not sent: invalid input", ["reason": note], correlationId: correlationId)
        return E(kind, correlationId: correlationId, note: note)
    }
}

/// The part every state object shares: single-flight, spending, and the continuation token.
///
/// Rules (DESIGN.md): while one action runs, another fails at once and sends nothing; an action
/// that succeeds spends the state; one that fails leaves it usable when the user can simply try
/// again, and spends it when the flow cannot go on.
final class StateCore: Sendable {
    enum Phase: Sendable { case ready, busy, spent }

    private struct Box: Sendable {
        var phase: Phase
        var token: Secret
    }

    let flow: FlowContext
    private let box: Locked<Box>
    /// Whether the server has moved past this state's token during the running action.
    private let moved = Locked(false)

    init(flow: FlowContext, token: Secret) {
        self.flow = flow
        box = Locked(Box(phase: .ready, token: token))
    }

    var phase: Phase { box.current.phase }
    /// The continuation token the next action sends.
    var currentToken: Secret { box.current.token }

    /// Replaces the continuation token while an action runs, when the server issued a new one
    /// that the next attempt must use.
    func update(token: Secret) {
        box.withLock { $0.token = token }
        moved.withLock { $0 = false }
    }

    /// A flow context for the same flow with other scopes (sign-in after sign-up or reset).
    func flow(scopes: [String], claims: String? = nil) -> FlowContext {
        FlowContext(
            client: flow.client, correlationId: flow.correlationId, username: flow.username, scopes: scopes,
            claims: claims)
    }

    /// Runs one action of the state with the current continuation token.
    func run<T, E: DetailedError>(_ errorType: E.Type, _ body: (Secret) async throws(E) -> T) async throws(E) -> T {
        let claimed: Result<Secret, E> = box.withLock { box in
            switch box.phase {
            case .busy: return .failure(E(.stateBusy, correlationId: flow.correlationId))
            case .spent: return .failure(E(.stateSpent, correlationId: flow.correlationId))
            case .ready:
                box.phase = .busy
                return .success(box.token)
            }
        }
        let token = try claimed.get()
        moved.withLock { $0 = false }
        // Every answer that consumes a continuation token during the action marks it moved.
        let result = await ActionProgress.$current.withValue(ActionProgress { [moved] in moved.withLock { $0 = true } })
        {
            await outcome { () async throws(E) -> T in try await body(token) }
        }
        switch result {
        case .success(let value):
            box.withLock { $0.phase = .spent }
            return value
        case .failure(let error):
            let error = error.continuing(flow)
            // A failure after the server moved past this state's token spends the state, whatever
            // the failure: retrying would send a token the server no longer accepts.
            let consumed = moved.current
            let usable = error.kind.leavesStateUsable && !consumed
            box.withLock { box in
                box.phase = usable ? .ready : .spent
                if let newToken = error.details.server?.continuationToken { box.token = newToken }
            }
            guard consumed else { throw error }
            var details = error.details
            details.stateConsumed = true
            throw E(details: details)
        }
    }
}

/// The running state action, seen by the wire layer through a task-local value: an answer that
/// consumes the continuation token (a success, or an error that moves the flow on) is reported
/// to it.
final class ActionProgress: Sendable {
    @TaskLocal static var current: ActionProgress?

    private let onMoved: @Sendable () -> Void

    init(onMoved: @escaping @Sendable () -> Void) { self.onMoved = onMoved }

    func serverMoved() { onMoved() }
}

extension FlowContext {
    /// The attributes as a form value, or the step's error naming the one that cannot be encoded.
    func encode<E: DetailedError>(_ attributes: UserAttributes, as errorType: E.Type) throws(E) -> String? {
        guard !attributes.isEmpty else { return nil }
        switch attributes.encoded() {
        case .success(let json): return json
        case .failure(let problem):
            throw E(
                details: NativeAuthErrorDetails(
                    .attributesInvalid, correlationId: correlationId, note: problem.note,
                    invalidAttributes: [problem.name]))
        }
    }
}
