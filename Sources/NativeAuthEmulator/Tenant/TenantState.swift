import Foundation
import NativeAuth

/// The fixed facts of a tenant: its names and the injected clock and random source.
struct TenantEnvironment: Sendable {
    let tenantSubdomain: String
    let tenantId: String
    let clientId: String
    /// `{sub}.ciamlogin.com`
    let host: String
    /// The tenant path segments the tenant answers on: `{sub}.onmicrosoft.com` and the tenant id.
    let tenantPaths: [String]
    let clock: any NativeAuthClock
    let random: any EmulatorRandomSource
}

/// One request being answered.
struct Call: Sendable {
    let request: HTTPRequest
    let endpoint: EmulatorEndpoint
    var form = FormBody()
    /// The server's time: the clock plus ``EmulatorSettings/serverClockOffset``.
    let now: Date
    /// The request's `client-request-id`, echoed back.
    let correlationId: String?
    /// The origin the client reached the tenant at (`http://127.0.0.1:PORT`), when an
    /// ``EmulatorServer`` serves it; `nil` in process. The server passes it alongside the request,
    /// never in a header, so no request can change the URLs the tenant writes.
    var publicOrigin: String? = nil
}

/// What ``EmulatedTenant/send(_:)`` does with a request.
enum Outcome: Sendable {
    case response(HTTPResponse)
    case networkFailure
    case failure(URLError.Code)
}

/// Everything an ``EmulatedTenant`` remembers. Lives behind the tenant's lock; every method runs
/// with the lock held, so one request is answered at a time and each answer sees a consistent tenant.
struct TenantState: Sendable {
    let environment: TenantEnvironment
    var settings = EmulatorSettings()
    /// Users by lowercased username.
    var users: [String: EmulatedUser] = [:]
    var outbox: [SentCode] = []
    var receivedRequests: [HTTPRequest] = []
    var forced: [EmulatorEndpoint: [ForcedAnswer]] = [:]
    /// Live flows by continuation token.
    var flows: [String: Flow] = [:]
    /// Refresh tokens by token. Access tokens are not kept: the protected resource checks their claims.
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    /// Browser sign-ins under way and the authorization codes issued.
    var web = WebSignInState()
    /// DPoP nonces and the proofs taken lately.
    var dpop = DPoPState()
    /// The authorization codes of Native Auth V2.
    var nativeAuthV2 = NativeAuthV2State()

    init(environment: TenantEnvironment) {
        self.environment = environment
    }

    var random: any EmulatorRandomSource { environment.random }

    /// The server's time: the clock plus ``EmulatorSettings/serverClockOffset``.
    var serverNow: Date { environment.clock.now().addingTimeInterval(settings.serverClockOffset) }

    // MARK: - Answering a request

    mutating func handle(_ request: HTTPRequest, publicOrigin: String? = nil) -> Outcome {
        receivedRequests.append(request)
        let now = serverNow
        let correlationId = request.header("client-request-id")
        if let metadata = authorizationServerMetadata(request, now: now, publicOrigin: publicOrigin) {
            return .response(metadata)
        }
        guard let endpoint = route(request) else {
            return .response(notFound(request, now: now, correlationId: correlationId, publicOrigin: publicOrigin))
        }
        let call = Call(
            request: request, endpoint: endpoint, now: now, correlationId: correlationId, publicOrigin: publicOrigin)
        if let answer = takeForcedAnswer(for: endpoint) {
            switch answer {
            case .lostAfterProcessing:
                _ = process(call)
                return .failure(.networkConnectionLost)
            case .truncatedAfterProcessing(let keepingBytes):
                guard case .response(var response) = process(call) else { return .networkFailure }
                response.body = response.body.prefix(max(0, keepingBytes))
                return .response(response)
            default:
                return forcedOutcome(answer, call: call)
            }
        }
        return process(call)
    }

    private mutating func process(_ call: Call) -> Outcome {
        let endpoint = call.endpoint
        if endpoint == .resource {
            let response = protectedResource(call)
            return .response(addingDPoPNonce(to: response, for: call))
        }
        if endpoint.isBrowserEndpoint {
            return .response(webResponse(call))
        }
        if endpoint == .pushedAuthorizationRequest {
            return .response(pushAuthorizationRequest(call))
        }
        if endpoint == .authorizationChallenge {
            return .response(authorizationChallenge(call))
        }
        if endpoint.isNativeAuthV2 {
            return .response(nativeAuthV2Response(call))
        }
        var response: HTTPResponse
        do throws(APIError) {
            response = jsonResponse(status: 200, body: try answer(call), call: call)
        } catch {
            response = errorResponse(error, call: call)
        }
        if endpoint == .token { response = addingDPoPNonce(to: response, for: call) }
        return .response(response)
    }

    private mutating func answer(_ incoming: Call) throws(APIError) -> JSONObject {
        var call = incoming
        try readForm(&call)
        let clientId = call.form["client_id"] ?? ""
        guard clientId == environment.clientId else {
            throw .invalidClient(clientId, tenant: environment.tenantSubdomain)
        }
        switch call.endpoint {
        case .signUpStart: return try signUpStart(call)
        case .signUpChallenge: return try signUpChallenge(call)
        case .signUpContinue: return try signUpContinue(call)
        case .initiate: return try signInInitiate(call)
        case .challenge: return try signInChallenge(call)
        case .introspect: return try signInIntrospect(call)
        case .token: return try token(call)
        case .registerIntrospect: return try registerIntrospect(call)
        case .registerChallenge: return try registerChallenge(call)
        case .registerContinue: return try registerContinue(call)
        case .resetStart: return try resetStart(call)
        case .resetChallenge: return try resetChallenge(call)
        case .resetContinue: return try resetContinue(call)
        case .resetSubmit: return try resetSubmit(call)
        case .resetPollCompletion: return try resetPollCompletion(call)
        case .resource, .openIDConfiguration, .keys, .authorize, .login, .logout, .pushedAuthorizationRequest,
            .authorizationChallenge, .authorizeChallenge, .v2SignInStart, .v2MethodChallenge, .v2MethodVerify,
            .v2ResetPasswordStart,
            .v2PasswordUpdate, .v2PasswordPollUpdate, .v2PasswordRecover:
            throw .invalidParameter("endpoint", "this endpoint takes no form")
        case .v2SignUpStart, .v2SignUpSubmitAttributes, .v2MethodEnroll, .v2MethodActivate, .v2MethodRiskVerify:
            throw .invalidParameter("endpoint", "this endpoint takes no form")
        }
    }

    /// Reads the request's form into `call.form`: an `application/x-www-form-urlencoded` body.
    func readForm(_ call: inout Call) throws(APIError) {
        let contentType = call.request.header("Content-Type")
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw .unsupportedMediaType(contentType)
        }
        do throws(FormBody.Malformed) {
            call.form = try FormBody(data: call.request.body ?? Data())
        } catch {
            throw .malformedBody(error.reason)
        }
    }

    /// The endpoint `request` is for, or `nil` when no endpoint answers that method and URL.
    private func route(_ request: HTTPRequest) -> EmulatorEndpoint? {
        guard request.url.scheme?.lowercased() == "https",
            request.url.host?.lowercased() == environment.host,
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        else { return nil }
        let path = components.percentEncodedPath
        for tenantPath in environment.tenantPaths {
            let prefix = "/" + tenantPath + "/"
            guard path.lowercased().hasPrefix(prefix.lowercased()) else { continue }
            let rest = String(path.dropFirst(prefix.count))
            if let endpoint = EmulatorEndpoint(rawValue: rest) ?? EmulatorEndpoint(pathWithSegments: rest),
                endpoint.method == request.method.uppercased()
            {
                return endpoint
            }
        }
        return nil
    }

    private mutating func takeForcedAnswer(for endpoint: EmulatorEndpoint) -> ForcedAnswer? {
        guard var queue = forced[endpoint], !queue.isEmpty else { return nil }
        let answer = queue.removeFirst()
        forced[endpoint] = queue.isEmpty ? nil : queue
        return answer
    }

    private mutating func forcedOutcome(_ answer: ForcedAnswer, call: Call) -> Outcome {
        switch answer {
        case .error(let error, let suberror, let codes, let description, let status):
            let forced = APIError(
                forced: error, suberror: suberror, codes: codes, description: description, status: status)
            return .response(errorResponse(forced, call: call))
        case .redirect(let reason):
            return .response(jsonResponse(status: 200, body: Self.redirect(reason), call: call))
        case .raw(let status, let headers, let body):
            return .response(HTTPResponse(statusCode: status, headers: headers, body: body))
        case .networkFailure:
            return .networkFailure
        case .timeout:
            return .failure(.timedOut)
        case .cannotConnect:
            return .failure(.cannotConnectToHost)
        case .tooManyRequests(let retryAfter):
            var response = errorResponse(
                APIError(
                    forced: "too_many_requests", suberror: nil, codes: [],
                    description: "Too many requests; try again later.", status: 429), call: call)
            if let retryAfter { response.headers["Retry-After"] = String(retryAfter) }
            return .response(response)
        case .serviceUnavailable(let retryAfter):
            var headers = ["Content-Type": "text/html; charset=utf-8"]
            if let retryAfter { headers["Retry-After"] = String(retryAfter) }
            return .response(
                HTTPResponse(
                    statusCode: 503, headers: headers,
                    body: Data("<html><body><h1>Service Unavailable</h1></body></html>".utf8)))
        case .lostAfterProcessing, .truncatedAfterProcessing:
            return .networkFailure
        }
    }

    // MARK: - Writing answers

    func headers(now: Date, correlationId: String?) -> [String: String] {
        var headers = ["Content-Type": "application/json; charset=utf-8", "Date": Encoding.httpDate(now)]
        if let correlationId { headers["client-request-id"] = correlationId }
        return headers
    }

    func jsonResponse(status: Int, body: JSONObject, call: Call) -> HTTPResponse {
        HTTPResponse(
            statusCode: status, headers: headers(now: call.now, correlationId: call.correlationId), body: body.data)
    }

    mutating func errorResponse(_ error: APIError, call: Call) -> HTTPResponse {
        let traceId = Encoding.randomUUID(from: random)
        let correlationId = call.correlationId ?? Encoding.randomUUID(from: random)
        let timestamp = Encoding.errorTimestamp(call.now)
        var body: JSONObject = [
            "error": .string(error.error),
            "error_description": .string(
                error.description(traceId: traceId, correlationId: correlationId, timestamp: timestamp)),
        ]
        if !error.draftShape {
            if !error.codes.isEmpty { body["error_codes"] = .array(error.codes.map(JSON.integer)) }
            if let suberror = error.suberror { body["suberror"] = .string(suberror) }
            body["timestamp"] = .string(timestamp)
            body["trace_id"] = .string(traceId)
            body["correlation_id"] = .string(correlationId)
        }
        for pair in error.extras.pairs { body[pair.key] = pair.value }
        var response = jsonResponse(status: error.status, body: body, call: call)
        if error.draftShape { response.headers["Cache-Control"] = "no-store" }
        return response
    }

    /// `404`, naming the request as the client sent it: on `publicOrigin` (the server's origin)
    /// when it came through an ``EmulatorServer``.
    func notFound(_ request: HTTPRequest, now: Date, correlationId: String?, publicOrigin: String? = nil)
        -> HTTPResponse
    {
        var target = request.url.absoluteString
        if let publicOrigin, var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            components.scheme = nil
            components.host = nil
            components.port = nil
            target = publicOrigin + (components.string ?? request.url.path)
        }
        let body: JSONObject = [
            "error": "not_found",
            "error_description": .string("No endpoint answers \(request.method) \(target)."),
        ]
        return HTTPResponse(statusCode: 404, headers: headers(now: now, correlationId: correlationId), body: body.data)
    }

    static func redirect(_ reason: String) -> JSONObject {
        ["challenge_type": "redirect", "redirect_reason": .string(reason)]
    }

    /// The 200 answer of a challenge that sent a one-time code.
    func oobChallengeBody(continuationToken: String, channel: String, address: String) -> JSONObject {
        var body: JSONObject = [
            "continuation_token": .string(continuationToken),
            "challenge_type": "oob",
            "binding_method": "prompt",
            "challenge_channel": .string(channel),
            "challenge_target_label": .string(Encoding.maskedLabel(address)),
        ]
        if settings.includeOptionalFields {
            body["code_length"] = .integer(settings.codeLength)
            body["interval"] = 300
        }
        return body
    }

    // MARK: - Reading requests

    /// The non-empty value of `name`, or `invalid_request` (90100).
    func required(_ name: String, in call: Call) throws(APIError) -> String {
        guard let value = call.form[name], !value.isEmpty else { throw .missingParameter(name) }
        return value
    }

    /// The `challenge_type` list: present, with `redirect`, and nothing but known types.
    func challengeTypes(in call: Call, requireRedirect: Bool = true) throws(APIError) -> Set<String> {
        let values = try required("challenge_type", in: call).split(separator: " ").map(String.init)
        if requireRedirect, !values.contains("redirect") { throw .redirectMissing }
        let unknown = values.filter { !["oob", "password", "redirect"].contains($0) }
        guard unknown.isEmpty else { throw .unsupportedChallengeType(unknown) }
        return Set(values)
    }

    func capabilities(in call: Call) -> Set<String> {
        Set(call.form.list("capabilities"))
    }

    func user(named username: String) -> EmulatedUser? {
        users[username.lowercased()]
    }

    // MARK: - Continuation tokens

    /// The flow behind the request's `continuation_token`. Unknown, consumed or foreign tokens are
    /// `invalid_request` with `invalidCode`; expired ones `expired_token` with `expiredCode`.
    func flow(
        for call: Call, kinds: Set<Flow.Kind>, invalidCode: Int, expiredCode: Int
    ) throws(APIError) -> (token: String, flow: Flow) {
        let token = try required("continuation_token", in: call)
        guard let flow = flows[token] else {
            throw .invalidContinuationToken(code: invalidCode, "it is unknown or has already been used")
        }
        guard kinds.contains(flow.kind) else {
            throw .invalidContinuationToken(code: invalidCode, "it belongs to a \(flow.kind.rawValue) flow")
        }
        guard call.now < flow.expiresAt else { throw .expiredToken(code: expiredCode) }
        return (token, flow)
    }

    /// Refuses a token whose flow is not at one of `stages`.
    func require(_ flow: Flow, at stages: Set<Flow.Stage>, code: Int) throws(APIError) {
        guard stages.contains(flow.stage) else {
            throw .invalidContinuationToken(
                code: code, "it does not allow this step (the flow is at \(flow.stage.rawValue))")
        }
    }

    /// Stores `flow` under a fresh continuation token, consuming `oldToken`, and returns the new token.
    mutating func store(_ flow: Flow, replacing oldToken: String?, now: Date) -> String {
        if let oldToken { flows[oldToken] = nil }
        var flow = flow
        flow.expiresAt = now.addingTimeInterval(settings.continuationTokenLifetime)
        return Self.insert(flow, byteCount: 32, from: random, into: &flows)
    }

    /// Puts `value` into `table` under `prefix` and a random token of `byteCount` bytes that `table`
    /// has no entry for yet (drawn again until it has none), and returns that key.
    static func insert<Value>(
        _ value: Value, byteCount: Int, prefix: String = "", from random: any EmulatorRandomSource,
        into table: inout [String: Value]
    ) -> String {
        var key = prefix + Encoding.randomToken(byteCount: byteCount, from: random)
        while table[key] != nil { key = prefix + Encoding.randomToken(byteCount: byteCount, from: random) }
        table[key] = value
        return key
    }

    /// Ends the flow of `token`: it can no longer be used.
    mutating func discard(_ token: String) {
        flows[token] = nil
    }

    // MARK: - Codes

    /// Makes a new one-time code, "sends" it (appends it to the outbox) and returns it.
    mutating func sendCode(to address: String, purpose: String, now: Date) -> String {
        let length = max(1, settings.codeLength)
        var code = ""
        for _ in 0..<length { code += String(random.next() % 10) }
        outbox.append(SentCode(to: address, code: code, purpose: purpose, sentAt: now))
        return code
    }
}
