import Foundation
import NativeAuth

/// Native Auth V2's OAuth endpoints: `oauth2/v2.0/authorize-challenge` (start and resume of
/// authorization, Docs/NativeAuthV2Protocol.md "Step 1" and "Step 3") and the `authorization_code` grant of
/// the codes it issues ("Step 4"). Both answer errors in the flat OAuth shape.
extension TenantState {
    /// Answers a request to a V2 endpoint: 404 when ``EmulatorSettings/nativeAuthV2`` is off, and
    /// for the `recover` link when ``EmulatorSettings/nativeAuthV2PasswordRecovery`` is off, and
    /// the `riskverify` link when ``EmulatorSettings/nativeAuthV2SMSRiskVerification`` is.
    mutating func nativeAuthV2Response(_ call: Call) -> HTTPResponse {
        guard settings.nativeAuthV2, call.endpoint != .v2PasswordRecover || settings.nativeAuthV2PasswordRecovery,
            call.endpoint != .v2MethodRiskVerify || settings.nativeAuthV2SMSRiskVerification
        else {
            return notFound(
                call.request, now: call.now, correlationId: call.correlationId, publicOrigin: call.publicOrigin)
        }
        if call.endpoint == .authorizeChallenge {
            do throws(APIError) {
                return try authorizeChallenge(call)
            } catch {
                return errorResponse(error, call: call)
            }
        }
        do throws(HALError) {
            let body = try V2RequestBody(call.request)
            if let answer = try v2ResetPasswordAnswer(call, body: body) {
                return jsonResponse(status: 200, body: answer, call: call)
            }
            if let signUp = try v2SignUpResponse(call, body: body) { return signUp }
            let answer: JSONObject
            switch call.endpoint {
            case .v2SignInStart: answer = try v2SignInStart(call, body: body)
            case .v2MethodChallenge: answer = try v2MethodChallenge(call, body: body)
            case .v2MethodVerify: answer = try v2MethodVerify(call, body: body)
            case .v2MethodRiskVerify: answer = try v2MethodRiskVerify(call, body: body)
            case .v2MethodEnroll: answer = try v2MethodEnroll(call, body: body)
            case .v2MethodActivate: answer = try v2MethodActivate(call, body: body)
            default: throw .malformed("this endpoint takes no JSON body")
            }
            return jsonResponse(status: 200, body: answer, call: call)
        } catch {
            return halErrorResponse(error, call: call)
        }
    }

    /// Start (a `client_id` and no `continuation_token`): a new authorization, answered 401 with
    /// `error: InsufficientAuthorization`, its `continuation_token`, the `sign_in` and
    /// `reset_password` links and, with sign-up on, the `sign_up` link. Resume (a
    /// `continuation_token` of a finished journey; `client_id` optional, as the MSAL clients send
    /// none): 200 with the `code`.
    private mutating func authorizeChallenge(_ incoming: Call) throws(APIError) -> HTTPResponse {
        var call = incoming
        try readForm(&call)
        let clientId = call.form["client_id"]
        if let token = call.form["continuation_token"], !token.isEmpty {
            if let clientId, clientId != environment.clientId {
                throw .invalidClient(clientId, tenant: environment.tenantSubdomain)
            }
            return jsonResponse(status: 200, body: try resumeAuthorization(call, token: token), call: call)
        }
        guard clientId == environment.clientId else {
            throw .invalidClient(clientId ?? "", tenant: environment.tenantSubdomain)
        }
        let flow = Flow(
            kind: .authorization, username: "", stage: .authorizationStarted, capabilities: [],
            offeredChallengeTypes: [])
        let token = store(flow, replacing: nil, now: call.now)
        let traceId = Encoding.randomUUID(from: random)
        let correlationId = call.correlationId ?? Encoding.randomUUID(from: random)
        var body: JSONObject = [
            "error": "InsufficientAuthorization",
            "error_description": "Authentication is required: follow a journey link with the continuation token.",
            "continuation_token": .string(token),
            "sign_in": .string("/\(environment.tenantId)/\(EmulatorEndpoint.v2SignInStart.rawValue)"),
            "reset_password": .string("/\(environment.tenantId)/\(EmulatorEndpoint.v2ResetPasswordStart.rawValue)"),
            "timestamp": .string(Encoding.errorTimestamp(call.now)),
            "trace_id": .string(traceId),
            "correlation_id": .string(correlationId),
        ]
        if settings.signUpEnabled { body["sign_up"] = .string(v2SignUpHref) }
        return jsonResponse(status: 401, body: body, call: call)
    }

    /// Spends the token of a finished journey on a single-use code.
    private mutating func resumeAuthorization(_ call: Call, token: String) throws(APIError) -> JSONObject {
        guard let flow = flows[token] else {
            throw .invalidContinuationToken(code: Self.signInInvalidToken, "it is unknown or has already been used")
        }
        guard flow.kind == .authorization else {
            throw .invalidContinuationToken(code: Self.signInInvalidToken, "it belongs to a \(flow.kind.rawValue) flow")
        }
        guard call.now < flow.expiresAt else { throw .expiredToken(code: Self.signInExpiredToken) }
        try require(flow, at: [.journeyFinished], code: Self.signInInvalidToken)
        discard(token)
        guard user(named: flow.username) != nil else { throw .userNotFound }
        let lifetime = max(1, settings.authorizationCodeLifetime)
        nativeAuthV2.codes = nativeAuthV2.codes.filter { call.now < $0.value.expiresAt.addingTimeInterval(lifetime) }
        let issued = NativeAuthV2Code(username: flow.username, expiresAt: call.now.addingTimeInterval(lifetime))
        let code = Self.insert(issued, byteCount: 32, from: random, into: &nativeAuthV2.codes)
        // [Draft] §5.2.1 names the code `authorization_code`; the V2 sources name it `code`.
        return [settings.nativeAuthV2DraftCodeName ? "authorization_code" : "code": .string(code)]
    }

    /// `grant_type=authorization_code` with a V2 code: unused and unexpired; no `redirect_uri`, no
    /// `code_verifier` and no DPoP proof are read. `scope` may be left out (the MSAL clients omit an
    /// empty one): the tokens are then for `openid profile offline_access`.
    mutating func nativeAuthV2CodeGrant(_ call: Call) throws(APIError) -> JSONObject {
        let code = try required("code", in: call)
        guard var issued = nativeAuthV2.codes[code] else { throw .invalidAuthorizationCode }
        guard !issued.redeemed else { throw .authorizationCodeRedeemed }
        guard call.now < issued.expiresAt else { throw .expiredAuthorizationCode }
        let scopes =
            (call.form["scope"] ?? "").isEmpty ? ["openid", "profile", "offline_access"] : try scopes(in: call)
        issued.redeemed = true
        nativeAuthV2.codes[code] = issued
        guard let user = user(named: issued.username) else { throw .userNotFound }
        return issueTokens(for: user, scopes: scopes, now: call.now)
    }
}
