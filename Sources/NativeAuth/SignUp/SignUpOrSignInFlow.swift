import Foundation

/// Sign-up-or-sign-in: sign-in first (a known user costs nothing extra), sign-up when the server
/// says the user does not exist (one request more than a plain sign-up: the `initiate` that
/// answered `user_not_found`).
enum SignUpOrSignInFlow {
    static func start(
        _ parameters: SignUpOrSignInParameters, client: ClientCore
    ) async throws(FlowError) -> SignUpOrSignInStartResult {
        let username = parameters.username.trimmingCharacters(in: .whitespacesAndNewlines)
        let correlationId = parameters.correlationId ?? UUID()
        let flow = client.flow(username: username, scopes: parameters.scopes, correlationId: correlationId)
        guard !username.isEmpty else {
            throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.")
        }
        // Whichever path the server takes, attributes that cannot be sent are refused before any request.
        _ = try flow.encode(parameters.attributes)
        let claims = try FlowContext.validClaims(parameters.claims, correlationId: correlationId)
        let signIn = SignInParameters(
            username: username, scopes: parameters.scopes, correlationId: correlationId, claims: claims)
        let started: SignInStartResult
        do {
            started = try await SignInFlow.start(signIn, client: client)
        } catch {
            // Sign-in's errors mean what they mean to sign-in.
            let error = error.named(as: SignInStartError.self)
            guard error.details.kind == .userNotFound else { throw error }
            return try await signUp(parameters, username: username, claims: claims, flow: flow)
        }
        return try signedIn(started, correlationId: correlationId)
    }

    /// Where sign-in's start leads. Its own function, so that the async start does not carry it
    /// after its suspension points.
    private static func signedIn(_ started: SignInStartResult, correlationId: UUID) throws(FlowError)
        -> SignUpOrSignInStartResult
    {
        switch started {
        case .codeRequired(let state, let sentTo, let channel, let codeLength):
            return .codeRequired(
                SignUpOrSignInCodeRequiredState(.signIn(state)), sentTo: sentTo, channelTargetType: channel,
                codeLength: codeLength)
        case .passwordRequired(let state):
            return .passwordRequired(state)
        case .completed, .awaitingMFA, .strongAuthRegistrationRequired, .authMethodSelectionRequired:
            // Every start is listed, so that a new one is a decision here and not a runtime
            // refusal. Only a password given up front signs in at once, and none is sent here;
            // nor does it ask the user to choose a first factor (the SDK chooses).
            throw FlowError(
                .unexpectedResponse, correlationId: correlationId,
                note: "Sign-in finished without a code or password step.")
        }
    }

    /// The user is new: `signup/v1.0/start` with the attributes, then the code.
    private static func signUp(
        _ parameters: SignUpOrSignInParameters, username: String, claims: String?, flow: FlowContext
    ) async throws(FlowError) -> SignUpOrSignInStartResult {
        let signUp = SignUpParameters(
            username: username, attributes: parameters.attributes, correlationId: flow.correlationId)
        let started: SignUpStartResult
        do {
            started = try await SignUpFlow.start(signUp, client: flow.client)
        } catch {
            throw refused(error)
        }
        switch started {
        case .codeRequired(let state, let sentTo, let channel, let codeLength):
            let next = SignUpOrSignInCodeRequiredState(.signUp(state, scopes: parameters.scopes, claims: claims))
            return .codeRequired(next, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
        case .attributesInvalid(let names):
            return .attributesInvalid(names)
        case .passwordRequired(let state):
            // The password before the code: the sign-up goes on on its own states.
            return .newUserPasswordRequired(state)
        }
    }

    /// Sign-up's refusals that name something the app can act on keep their meaning; any other
    /// error answer, after sign-in found no such user, means the server will not sign this user up
    /// (Entra's answer for a user flow with sign-up turned off is not documented, so none is
    /// singled out). A failure without an answer (network, cancellation, a browser) stays as it is.
    static func refused(_ error: FlowError) -> FlowError {
        // Sign-up's errors mean what they mean to sign-up.
        let error = error.named(as: SignUpStartError.self)
        let details = error.details
        guard let server = details.server else { return error }
        switch details.kind {
        case .invalidUsername, .attributesInvalid, .attributesRequired, .userAlreadyExists, .flowExpired:
            return error
        default:
            return FlowError(
                details: NativeAuthErrorDetails(
                    .signUpUnavailable, correlationId: details.correlationId, server: server,
                    note: "Sign-in found no user with this username, and signup/v1.0/start refused to create one."))
        }
    }
}
