import AuthSupport
import Foundation

/// What every step of one flow shares: the client, the correlation id, who is signing in, and
/// the scopes to ask for at the end. The one caller of the wire client for the flows.
///
/// A class: it never changes once built (``with(scopes:claims:)`` and ``with(tokenUse:)`` make
/// another), and its fields are shared rather than copied.
final class FlowContext: Sendable {
    let client: ClientCore
    let correlationId: UUID
    let username: String
    let scopes: [String]
    /// An OIDC claims request sent with the flow's token request.
    let claims: String?
    /// Set while a state's action runs: marked when an answer uses up the state's token.
    let tokenUse: Locked<Bool>?

    init(
        client: ClientCore, correlationId: UUID, username: String, scopes: [String], claims: String? = nil,
        tokenUse: Locked<Bool>? = nil
    ) {
        self.client = client
        self.correlationId = correlationId
        self.username = username
        self.scopes = scopes
        self.claims = claims
        self.tokenUse = tokenUse
    }

    /// Sends `call` and returns its outcome, marking the running state's token as used when the
    /// answer consumed it. Not generic: every step's call goes through this one body.
    func outcome(of call: WireCall) async -> Result<StepOutcome, WireFailure> {
        let sent: Result<StepOutcome, WireFailure>
        do {
            sent = .success(try await client.wire.step(call, correlationId: correlationId))
        } catch {
            sent = .failure(error)
        }
        if case .success(let outcome) = sent, outcome.consumesToken { tokenUse?.withLock { $0 = true } }
        return sent
    }

    /// Sends `call`; a failure, a refusal or a malformed answer is thrown, a refusal raw for the
    /// step's error type to name. A next step is returned, for the step to follow or refuse.
    /// Called, not inlined: each of its callers would otherwise carry its three throws.
    @inline(never)
    func step(_ call: WireCall) async throws(FlowError) -> StepOutcome {
        switch await outcome(of: call) {
        case .failure(let failure): throw FlowError(failure, from: call.endpoint, correlationId: correlationId)
        case .success(.refused(let error)):
            throw FlowError(.server(error), from: call.endpoint, correlationId: correlationId)
        case .success(.malformed(let answer)):
            throw FlowError(.unexpected(answer), from: call.endpoint, correlationId: correlationId)
        case .success(let outcome): return outcome
        }
    }

    /// The error for an outcome of `call` the step cannot go on with: the server error it carries,
    /// or an unexpected answer naming what came.
    @inline(never)
    func unexpected(_ outcome: StepOutcome, of call: WireCall) -> FlowError {
        FlowError(Self.failure(for: outcome), from: call.endpoint, correlationId: correlationId)
    }

    static func failure(for outcome: StepOutcome) -> WireFailure {
        let value: String
        switch outcome {
        case .refused(let error), .nextStep(_, _, let error): return .server(error)
        case .malformed(let answer): return .unexpected(answer)
        case .challenged(let answer): value = answer.challengeType
        case .continued, .tokens, .methods, .resetSubmitted, .polled: value = "an answer of another step"
        }
        return .unexpected(.init(problem: .unknownValue(field: "challenge_type", value: value)))
    }

    /// Sends a call whose only expected answer is a code sent out of band.
    func requestCode(_ call: WireCall) async throws(FlowError) -> CodeChallenge {
        let outcome = try await step(call)
        guard case .challenged(.code(let challenge)) = outcome else { throw unexpected(outcome, of: call) }
        return challenge
    }

    /// Sends a call whose only expected answer moves on with a continuation token.
    func requestToken(_ call: WireCall) async throws(FlowError) -> Secret {
        let outcome = try await step(call)
        guard case .continued(let token?) = outcome else { throw unexpected(outcome, of: call) }
        return token
    }

    /// Checks that a claims request is a JSON object, before anything is sent.
    static func validClaims(_ claims: String?, correlationId: UUID) throws(FlowError) -> String? {
        try ClaimsRequest.validated(claims, correlationId: correlationId, as: FlowError.self)
    }

    @inline(never)
    func fail(_ kind: ErrorKind, note: String) -> FlowError {
        client.log(.debug, "request not sent: invalid input", ["reason": note], correlationId: correlationId)
        return FlowError(kind, correlationId: correlationId, note: note)
    }

    /// A flow context for the same flow with other scopes (sign-in after sign-up or reset).
    func with(scopes: [String], claims: String?) -> FlowContext {
        FlowContext(
            client: client, correlationId: correlationId, username: username, scopes: scopes, claims: claims,
            tokenUse: tokenUse)
    }

    /// The same flow, its answers marking `tokenUse` (`nil`: marking nothing).
    func with(tokenUse: Locked<Bool>?) -> FlowContext {
        FlowContext(
            client: client, correlationId: correlationId, username: username, scopes: scopes, claims: claims,
            tokenUse: tokenUse)
    }
}

/// The one error type of the flow engine. Each public action turns it into its own error type at
/// its edge (``StateCore/run(_:_:)``, the client's entry points), so the engine is compiled once,
/// not once per error type.
///
/// A server error stays raw in the engine until the error type of the action names it
/// (``named(as:)``) as it declares (``DetailedError/naming(at:)``): one a V1 endpoint answered holds
/// the meanings every step shares and the endpoint it came from; one a V2 call answered holds the
/// kind V2's error tables give it, and the action's type adds only its own reading of a wrong
/// password (``ErrorNaming/wrongPasswordIsInvalidPassword``).
struct FlowError: DetailedError {
    /// What answered a server error no error type has named yet.
    enum Answerer: Sendable {
        /// A V1 endpoint.
        case v1(Endpoint)
        /// A V2 call (its link or fixed endpoint).
        case v2
    }

    let details: NativeAuthErrorDetails
    /// What answered the server error, while no error type has named it.
    let answeredBy: Answerer?

    init(details: NativeAuthErrorDetails) {
        self.details = details
        answeredBy = nil
    }

    /// A failed call to `endpoint`, its server error (if any) not named yet.
    @inline(never)
    init(_ failure: WireFailure, from endpoint: Endpoint, correlationId: UUID) {
        details = NativeAuthErrorDetails(failure, correlationId: correlationId, naming: .none)
        if case .server = failure { answeredBy = .v1(endpoint) } else { answeredBy = nil }
    }

    /// A failed V2 call that asked `asked` (a link relation or a fixed endpoint): a server error
    /// gets its kind from V2's catalogue, where it is read by what was asked
    /// (``ServerError/v2Kind(asked:)``); the action's error type adds only its own reading of a
    /// wrong password.
    init(_ failure: WireFailure, asked: String, correlationId: UUID) {
        guard case .server(let error) = failure else {
            self.init(
                details: NativeAuthErrorDetails(failure, correlationId: correlationId, serverKind: nil), answeredBy: nil
            )
            return
        }
        self.init(
            details: NativeAuthErrorDetails(error.v2Kind(asked: asked), correlationId: correlationId, server: error),
            answeredBy: .v2)
    }

    private init(details: NativeAuthErrorDetails, answeredBy: Answerer?) {
        self.details = details
        self.answeredBy = answeredBy
    }

    /// This error with its server error named as `E` names it; an error named already, or without
    /// a server error, as it is.
    /// Not generic: one body serves every error type.
    func named(as errorType: any DetailedError.Type) -> FlowError {
        switch answeredBy {
        case nil:
            return self
        case .v1(let endpoint):
            return FlowError(details: details.named(by: errorType.naming(at: endpoint)))
        case .v2:
            var named = details
            if errorType.naming.wrongPasswordIsInvalidPassword, named.kind == .invalidCredentials {
                named.kind = .invalidPassword(nil)
            }
            return FlowError(details: named)
        }
    }
}

extension DetailedError {
    /// The error of this type an engine error makes, its server error named as this type names it.
    init(_ error: FlowError) { self.init(details: error.named(as: Self.self).details) }
}

extension ClientCore {
    /// A new flow for `username` (trimmed) with no scopes of its own; an empty username fails
    /// before anything is sent.
    func startFlow(username: String, correlationId: UUID?) throws(FlowError) -> FlowContext {
        let username = username.trimmingCharacters(in: .whitespacesAndNewlines)
        let flow = flow(username: username, scopes: [], correlationId: correlationId)
        guard !username.isEmpty else {
            throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.")
        }
        return flow
    }
}
