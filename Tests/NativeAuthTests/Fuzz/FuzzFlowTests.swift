import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A server made of generated answers: each request gets an answer generated for its endpoint,
/// unless answers were forced. It records what it served, and extends the watchdog's budget by the
/// size of what it served.
final class FuzzTransport: HTTPTransport, Sendable {
    struct Served: Sendable {
        var endpoint: Endpoint?
        var answer: FuzzAnswer
        var correlationId: String?
    }

    private struct State: Sendable {
        var gen: Gen
        var profile: Gen.Profile
        var forced: [FuzzAnswer] = []
        var served: [Served] = []
        var total = 0
        /// Whether the last answer asked for a password next (sign-up's `credential_required`).
        var passwordNext = false
    }

    /// More requests than this in one case means a loop: the transport stops answering.
    static let requestLimit = 200

    private let state: Locked<State>
    /// Extra yields for the watchdog, grown by every large body served.
    let credit = Locked(0)

    init(gen: Gen, profile: Gen.Profile) { state = Locked(State(gen: gen, profile: profile)) }

    /// The next answers, in order, instead of generated ones.
    func force(_ answers: [FuzzAnswer]) { state.withLock { $0.forced += answers } }

    /// What was served since the last call.
    func takeServed() -> [Served] {
        state.withLock { state in
            defer { state.served = [] }
            return state.served
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let endpoint = Endpoint.allCases.first { request.url.path.hasSuffix("/" + $0.rawValue) }
        let answer = state.withLock { state -> FuzzAnswer in
            state.total += 1
            let answer: FuzzAnswer
            if !state.forced.isEmpty {
                answer = state.forced.removeFirst()
            } else if state.total > Self.requestLimit {
                answer = .failure(.resourceUnavailable)
            } else if endpoint == .signUpChallenge, state.passwordNext, state.gen.rng.chance(0.8) {
                // After credential_required the server sends the password challenge.
                let body = state.gen.challengeBody(weights: [5, 85, 2, 4, 4]).render(using: &state.gen.rng)
                answer = .response(HTTPResponse(statusCode: 200, body: Data(body.utf8)))
            } else if let endpoint {
                answer = state.gen.answer(endpoint, profile: state.profile)
            } else {
                answer = .failure(.badURL)
            }
            state.served.append(
                Served(endpoint: endpoint, answer: answer, correlationId: request.header("client-request-id")))
            if case .response(let response) = answer {
                state.passwordNext =
                    response.statusCode == 400 && response.body.range(of: Data("credential_required".utf8)) != nil
            }
            return answer
        }
        switch answer {
        case .response(let response):
            if response.body.count > 4096 {
                credit.withLock { $0 += response.body.count / 1024 * Watchdog.yieldsPerKilobyte }
            }
            return response
        case .failure(let code):
            throw URLError(code)
        }
    }
}

/// Every object an action can return, so that the walk can act on it next: a flow's state (the
/// catalogue's, acted on through it) or a signed-in account.
enum LiveState: Sendable {
    case flow(FlowState)
    case account(UserAccountResult)

    var core: StateCore? {
        guard case .flow(let state) = self else { return nil }
        return state.core
    }

    /// Everything an app could show of it.
    var rendered: String {
        switch self {
        case .flow(.signInCode(let state)): state.description + String(reflecting: state)
        case .flow(.awaitingMFA(let state)): state.description + state.authMethods.description
        case .flow(.signUpAttributes(let state)): state.description + state.requiredAttributes.description
        case .flow(let state): state.description
        case .account(let account): account.description + account.account.claims.description
        }
    }
}

extension FlowState {
    /// The SDK's core of the state, whose phase the walk checks.
    var core: StateCore {
        switch self {
        case .signInCode(let state): state.core
        case .signInPassword(let state): state.core
        case .awaitingMFA(let state): state.core
        case .mfaRequired(let state): state.core
        case .registerStrongAuth(let state): state.core
        case .registerVerification(let state): state.core
        case .signUpCode(let state): state.core
        case .signUpPassword(let state): state.core
        case .signUpAttributes(let state): state.core
        case .signInAfterSignUp(let state): state.core
        case .resetCode(let state): state.core
        case .resetPassword(let state): state.core
        case .signInAfterReset(let state): state.core
        case .signUpOrSignInCode(let state): state.core
        case .authMethodSelection(let state): state.core
        case .resetAuthMethodSelection(let state): state.core
        }
    }
}

/// What one action ended in: a result (the states it leads to) or a typed error.
struct ActionOutcome: Sendable {
    var error: (any NativeAuthError)?
    /// The error type the step declares (`throws(E)`).
    var declaredError: String
    var next: [LiveState] = []
    var rendered: [String] = []
    /// A success whose last answer is an error body (sign-up's attributes answers).
    var endsOnServerError = false
}

extension ActionOutcome {
    init(_ next: [LiveState], endsOnServerError: Bool = false, rendered: [String] = []) {
        self.init(
            error: nil, declaredError: "", next: next, rendered: rendered + next.map(\.rendered),
            endsOnServerError: endsOnServerError)
    }

    /// The outcome of a call made through the catalogue. A sign-up that asks for attributes, or
    /// refuses them, ends on the server's error body.
    init(_ result: FlowActionResult) {
        switch result.outcome {
        case .error(let error, _):
            self.init(error: error, declaredError: result.declaredError)
        case .state(let state):
            self.init([.flow(state)], endsOnServerError: state.kind == .signUpAttributes, rendered: result.shown)
        case .completed(let account):
            self.init([.account(account)], rendered: result.shown)
        case .attributesInvalid:
            self.init([], endsOnServerError: true, rendered: result.shown)
        case .unknown:
            self.init([], rendered: result.shown)
        }
    }
}

/// (g) The flows end to end on a generated server: every action ends in exactly one outcome, a
/// result or the step's typed error, that agrees with what was served; never a crash or a hang;
/// and nothing rendered shows a secret.
@Suite("Fuzz: flows end to end", .serialized, .hangLimit, .cpuHeavy)
struct FuzzFlowTests {
    @Test func flows() async {
        FlowWalk.reached.withLock { $0 = [:] }
        await FuzzRunner(target: .flows).run { seed in Self.flowCase(seed) }
        // Which actions the walks reached, and how they ended.
        let reached = FlowWalk.reached.current.sorted { $0.key < $1.key }
        let actions = reached.reduce(0) { $0 + $1.value.results + $1.value.errors }
        print("fuzz flows: \(actions) actions; reached (results/errors):")
        for (name, counts) in reached { print("  \(name): \(counts.results)/\(counts.errors)") }
    }

    /// One action the walk can take: its name, the state it acts on, and the call.
    struct Action: Sendable {
        var name: String
        var state: LiveState?
        var correlationId: UUID?
        var run: @Sendable () async -> ActionOutcome
    }

    static func flowCase(_ seed: UInt64) -> FuzzCase {
        FuzzCase(size: 0, guardsItself: true) {
            var walk = FlowWalk(seed: seed)
            return await walk.run()
        }
    }
}

/// One random walk through the states of a client on a generated server.
struct FlowWalk {
    /// Per action: how many ended in a result, how many in an error.
    static let reached = Locked<[String: (results: Int, errors: Int)]>([:])

    var rng: SplitMix64
    let transport: FuzzTransport
    let client: NativeAuthClient
    var problems = Problems()
    var inputs = 0
    /// Every record the SDK logs, at every level: none may show a secret.
    let logger = InMemoryLogger(minimumLevel: .trace)
    var recordsChecked = 0
    /// Markers that served bodies carry where anything may be shown.
    var echoable: Set<String> = []

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        var gen = Gen(seed: SplitMix64.mix(seed ^ 0xF10))
        let (profile, wrongTypeRate) = [(Gen.Profile.calmFlow, 0.01), (.flow, 0.04), (.chaoticFlow, 0.1)][
            rng.weighted([50, 35, 15])]
        gen.wrongTypeRate = wrongTypeRate
        transport = FuzzTransport(gen: gen, profile: profile)
        var configuration = testConfiguration(
            challengeTypes: rng.pick([[.oob, .password], [.oob], [.password]]),
            capabilities: rng.pick([[], [.mfaRequired], [.mfaRequired, .registrationRequired]]))
        configuration.clock = TestClock()
        configuration.logger = logger
        // The generated server answers in process, and the walk's watchdog catches a hang; the
        // request deadline (a wall-clock one) is the longest allowed, so that a walk waiting
        // behind the whole suite for a thread is not ended as a network failure.
        configuration.requestTimeout = TestBounds.requestDeadline
        client = NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
    }

    /// Secret input: never sent back by the server, so never to be shown.
    mutating func secretInput(_ prefix: String) -> String {
        inputs += 1
        if rng.chance(0.04) { return rng.pick(["", "  ", "\n"]) }
        return "\(prefix)-SECRET-\(inputs)"
    }

    mutating func run() async -> [String] {
        var live: [LiveState] = []
        var current: LiveState?
        let steps = rng.int(2...9)
        for step in 0..<steps {
            let action: FuzzFlowTests.Action
            if step == 0 {
                action = start()
            } else if let state = rng.chance(0.85) ? current : live.isEmpty ? nil : rng.pick(live) {
                action = act(on: state)
            } else {
                break
            }
            let phaseBefore = action.state?.core?.phase
            guard let outcome = await Watchdog.race(limit: Watchdog.baseYields, credit: transport.credit, action.run)
            else {
                problems.add("hang in \(action.name) (step \(step))")
                break
            }
            let served = transport.takeServed()
            Self.reached.withLock { reached in
                var counts = reached[action.name] ?? (0, 0)
                if outcome.error == nil { counts.results += 1 } else { counts.errors += 1 }
                reached[action.name] = counts
            }
            check(action, outcome, served: served, phaseBefore: phaseBefore)
            if !problems.list.isEmpty {
                problems.add(
                    "after \(action.name) at step \(step); served: " + served.map(Self.describe).joined(separator: ", ")
                )
                break
            }
            if let next = outcome.next.first {
                current = next
                live += outcome.next
            }
        }
        return problems.list
    }

    static func describe(_ served: FuzzTransport.Served) -> String {
        let endpoint = served.endpoint?.rawValue ?? "?"
        switch served.answer {
        case .failure(let code): return "\(endpoint) → URLError \(code.rawValue)"
        case .response(let response):
            return
                "\(endpoint) → \(response.statusCode) \(response.body.count) bytes \(String(decoding: response.body.prefix(160), as: UTF8.self).debugDescription)"
        }
    }

    // MARK: Actions

    mutating func start() -> FuzzFlowTests.Action {
        let client = client
        let username =
            rng.chance(0.97) ? rng.pick(["ada@example.com", " ada@example.com ", "é@ü.com"]) : rng.pick(["", " "])
        let correlationId = UUID()
        switch rng.int(0..<7) {
        case 0, 1:
            return .init(name: "signIn(username)", correlationId: correlationId) {
                ActionOutcome(await client.start(.signIn, username: username, correlationId: correlationId))
            }
        case 2:
            let password = secretInput("PW")
            return .init(name: "signIn(username, password)", correlationId: correlationId) {
                ActionOutcome(
                    await client.start(.signIn, username: username, password: password, correlationId: correlationId))
            }
        case 3:
            let password: String? = rng.chance(0.5) ? secretInput("PW") : nil
            let attributes: UserAttributes =
                rng.chance(0.05)
                ? ["bad": .double(.nan)] : rng.pick([[:], ["city": "Oslo"], ["age": 42, "vip": true]])
            return .init(name: "signUp", correlationId: correlationId) {
                ActionOutcome(
                    await client.start(
                        .signUp, username: username, password: password, attributes: attributes,
                        correlationId: correlationId))
            }
        case 4:
            return .init(name: "resetPassword", correlationId: correlationId) {
                ActionOutcome(await client.start(.resetPassword, username: username, correlationId: correlationId))
            }
        default:
            // A signed-in account from valid answers; the walk then asks it for tokens.
            transport.force([
                .response(HTTPResponse(statusCode: 200, body: Data("{\"continuation_token\":\"CT-SECRET-A\"}".utf8))),
                .response(
                    HTTPResponse(
                        statusCode: 200,
                        body: Data("{\"continuation_token\":\"CT-SECRET-B\",\"challenge_type\":\"password\"}".utf8))),
                .response(
                    HTTPResponse(
                        statusCode: 200,
                        body: Data(
                            "{\"access_token\":\"AT-SECRET-A\",\"refresh_token\":\"RT-SECRET-A\",\"expires_in\":\(rng.pick([3600, 10, 0])),\"id_token\":\"\(TestTokens.idToken())\"}"
                                .utf8))),
            ])
            let password = "PW-SECRET-A"
            return .init(name: "signIn(valid answers)", correlationId: correlationId) {
                ActionOutcome(
                    await client.start(
                        .signIn, username: "ada@example.com", password: password, correlationId: correlationId))
            }
        }
    }

    /// An action on `state`: for a flow's state, the catalogue's first call or (when it has one) its
    /// second, each about half the time; for an account, a token or (rarely) a sign-out.
    mutating func act(on state: LiveState) -> FuzzFlowTests.Action {
        let code = secretInput("CODE")
        let password = secretInput("PW")
        let contact = rng.chance(0.95) ? "grace@example.com" : ""
        let useFirstMethod = rng.chance(0.9)
        let scopes = rng.pick([[], ["User.Read"], ["openid"], ["api://x/read", "User.Read"]])
        let flip = rng.chance(0.5)
        let made = AuthMethod(
            id: rng.pick(["email", "sms", ""]), channelTargetType: rng.pick([.email, .sms, .other("pigeon")]),
            loginHint: "h")
        let name: String
        let run: @Sendable () async -> ActionOutcome
        switch state {
        case .flow(let flowState):
            let kind = flowState.kind
            let call = flip || kind.calls.count == 1 ? kind.calls[0] : kind.calls[1]
            var input = FlowActionInput(
                code: code, password: password,
                authMethod: useFirstMethod ? flowState.methods?.first ?? made : made, contact: contact, scopes: scopes)
            if kind == .signUpAttributes {
                input.attributes = rng.chance(0.05) ? ["bad": .double(.infinity)] : rng.pick([[:], ["city": "Oslo"]])
            }
            name = "\(kind.typeName).\(call.rawValue)"
            let given = input
            run = {
                guard let result = await flowState.perform(call, given) else {
                    return ActionOutcome([], rendered: ["\(kind.typeName) has no \(call)"])
                }
                return ActionOutcome(result)
            }
        case .account(let account):
            if rng.chance(0.05) {
                name = "UserAccountResult.signOut"
                run = {
                    let result = await account.signOut()
                    return ActionOutcome([], rendered: ["\(result)"])
                }
            } else {
                name = "UserAccountResult.getAccessToken(forceRefresh: \(flip))"
                run = {
                    do throws(RetrieveAccessTokenError) {
                        let token = try await account.getAccessToken(scopes: scopes, forceRefresh: flip)
                        return ActionOutcome(
                            [.account(account)], rendered: [token.description, String(reflecting: token)])
                    } catch {
                        return ActionOutcome(
                            error: error, declaredError: String(describing: RetrieveAccessTokenError.self))
                    }
                }
            }
        }
        return .init(name: name, state: state, correlationId: state.core?.flow.correlationId, run: run)
    }

    // MARK: Checks

    /// Kinds an action may end in without sending anything.
    static let localKinds: [ErrorKind] = [
        .invalidUsername, .invalidCredentials, .invalidPassword(nil), .invalidCode, .invalidInput, .attributesInvalid,
        .stateSpent, .stateBusy, .flowExpired, .noAccount, .refreshTokenExpired, .signInUnavailable, .invalidArgument,
    ]

    mutating func check(
        _ action: FuzzFlowTests.Action, _ outcome: ActionOutcome, served: [FuzzTransport.Served],
        phaseBefore: StateCore.Phase?
    ) {
        let name = action.name
        for answer in served {
            if case .response(let response) = answer.answer { echoable.formUnion(Markers.echoable(in: response.body)) }
            if let expected = action.correlationId {
                problems.check(
                    answer.correlationId == expected.uuidString.lowercased(),
                    "\(name): a request with client-request-id \(answer.correlationId ?? "none")")
            }
        }
        problems.check(served.count <= 8, "\(name): \(served.count) requests for one action")
        let records = logger.records
        for record in records.dropFirst(recordsChecked) { checkSecrets(record.description, "\(name): a log record") }
        recordsChecked = records.count
        let last = served.last

        if let error = outcome.error {
            let kind = error.details.kind
            let typeName = String(describing: type(of: error))
            problems.check(
                typeName == outcome.declaredError, "\(name): threw \(typeName), declared \(outcome.declaredError)")
            // Renderings: no secret, and they say what the error is.
            let texts = [
                error.description, error.debugDescription, error.errorDescription ?? "", String(reflecting: error),
                "\(error)",
            ]
            for text in texts { checkSecrets(text, "\(name): the error's rendering") }
            problems.check(error.description.hasPrefix(typeName), "\(name): description does not name \(typeName)")
            problems.check(!(error.errorDescription ?? "").isEmpty, "\(name): empty errorDescription")
            if let expected = action.correlationId {
                problems.check(error.correlationId == expected, "\(name): the error has another correlation id")
            }
            if phaseBefore == .spent {
                problems.check(
                    error.isStateAlreadyUsed && served.isEmpty,
                    "\(name) on a spent state: \(kind), \(served.count) requests")
            }
            switch last?.answer {
            case nil:
                problems.check(
                    Self.localKinds.contains { Self.sameCase($0, kind) }, "\(name): \(kind) without any request")
            case .failure(let code)?:
                if code == .cancelled {
                    problems.check(error.isCancelled, "\(name): a cancelled request gave \(kind)")
                } else {
                    problems.check(error.isNetworkError, "\(name): a transport failure gave \(kind)")
                    problems.check(
                        (error.details.underlyingError as? URLError)?.code == code, "\(name): the URLError is not kept")
                }
            case .response(let response)?:
                checkError(error, after: response, name)
            }
            if let core = action.state?.core, phaseBefore == .ready {
                // Once an answer consumed the state's token (a 2xx, or an error that moves the flow
                // on), a failure spends the state, except where the flow says the state holds a
                // fresh token again (a reset's wait); the error must then say so too.
                let consumed = served.contains { Self.consumesToken($0.answer) }
                let expected: StateCore.Phase =
                    consumed
                    ? (error.isStateStillUsable ? .ready : .spent) : (kind.leavesStateUsable ? .ready : .spent)
                problems.check(
                    core.phase == expected, "\(name): after \(kind) the state is \(core.phase), expected \(expected)")
                problems.check(
                    error.isStateStillUsable == (expected == .ready), "\(name): isStateStillUsable disagrees")
                if consumed, error.isStateStillUsable {
                    problems.check(
                        served.contains {
                            $0.endpoint == .resetPasswordSubmit || $0.endpoint == .resetPasswordPollCompletion
                        },
                        "\(name): usable after its token was consumed, outside a reset's wait")
                }
            }
        } else {
            for text in outcome.rendered { checkSecrets(text, "\(name): the result's rendering") }
            for (index, answer) in served.enumerated() {
                // An answer the SDK retried (the same endpoint asked again at once) is not the one
                // the result stands on.
                if index + 1 < served.count, served[index + 1].endpoint == answer.endpoint { continue }
                guard case .response(let response) = answer.answer else {
                    problems.add("\(name): succeeded after a transport failure")
                    continue
                }
                let status = response.statusCode
                problems.check(
                    (200...299).contains(status) || (400...499).contains(status),
                    "\(name): succeeded after status \(status)")
                if (400...499).contains(status), case .unexpected = FuzzExpectation(response) {
                    problems.add("\(name): succeeded after a \(status) that is not an error body")
                }
            }
            if case .response(let response)? = last?.answer {
                let expectation = FuzzExpectation(response)
                if outcome.endsOnServerError {
                    if case .server = expectation {
                    } else {
                        problems.add("\(name): \(expectation) ended in a server-error result")
                    }
                } else {
                    problems.check(
                        expectation == .success, "\(name): succeeded on an answer expected as \(expectation)")
                }
            }
            if let core = action.state?.core, phaseBefore == .ready {
                problems.check(core.phase == .spent, "\(name): a state is \(core.phase) after its action succeeded")
            }
            problems.check(phaseBefore != .spent, "\(name): a spent state acted again")
        }
    }

    mutating func checkError(_ error: any NativeAuthError, after response: HTTPResponse, _ name: String) {
        let kind = error.details.kind
        let status = response.statusCode
        switch FuzzExpectation(response) {
        case .unexpected(let expectedStatus, _):
            problems.check(error.isUnexpectedResponse, "\(name): status \(status) (not an API answer) gave \(kind)")
            problems.check(
                error.details.httpStatusCode == expectedStatus,
                "\(name): status \(String(describing: error.details.httpStatusCode)) reported for \(status)")
        case .redirect(let reason):
            problems.check(error.isBrowserRequired, "\(name): a redirect gave \(kind)")
            problems.check(error.redirectReason == reason, "\(name): redirect reason not kept")
        case .server(let serverError):
            let members = (try? JSONValue.parse(response.body))?.objectValue ?? [:]
            if !Lenient.isAmbiguous(members, "error") {
                problems.check(
                    error.serverError == serverError,
                    "\(name): server error '\(error.serverError ?? "nil")', served '\(serverError)'")
            }
            problems.check(error.details.httpStatusCode == status, "\(name): status not kept")
            problems.check(
                !error.isUnexpectedResponse && !error.isNetworkError && !error.isBrowserRequired,
                "\(name): an error body gave \(kind)")
        case .success:
            // A success body the step could not use, or a reset that failed or did not finish, or
            // a refresh answer for another account (or with an ID token that cannot be read).
            let allowed =
                error.isUnexpectedResponse || kind == .passwordResetFailed
                || (kind == .accountMismatch && name.contains("getAccessToken"))
            problems.check(allowed, "\(name): a usable-looking success gave \(kind)")
            if error.isUnexpectedResponse, let reported = error.details.httpStatusCode {
                problems.check(reported == status, "\(name): status \(reported) reported for \(status)")
            }
            problems.check(error.details.server == nil, "\(name): a server error from a success")
        }
    }

    mutating func checkSecrets(_ text: String, _ what: String) {
        let leaked = Markers.find(in: text).filter { !echoable.contains($0) }
        problems.check(leaked.isEmpty, "\(what) shows \(leaked.sorted())")
    }

    /// Whether an answer consumed the continuation token it was sent with: a 2xx API answer, or an error
    /// that moves the flow on (a second factor, registration, a password or attributes next).
    static func consumesToken(_ answer: FuzzAnswer) -> Bool {
        guard case .response(let response) = answer else { return false }
        // Only an answer from the API counts: a 2xx that is not a JSON object (a proxy's page)
        // never reached it.
        if (200...299).contains(response.statusCode) { return FuzzExpectation(response) == .success }
        // An answer the SDK refuses (an attribute form naming no attribute) consumes nothing.
        guard case .server = FuzzExpectation(response) else { return false }
        guard (400...499).contains(response.statusCode), response.statusCode != 429,
            let members = (try? JSONValue.parse(response.body))?.objectValue
        else { return false }
        let object = WireObject(members)
        guard let error = ServerError(status: response.statusCode, object: object) else { return false }
        return error.movesFlow
    }

    static func sameCase(_ lhs: ErrorKind, _ rhs: ErrorKind) -> Bool {
        if case .invalidPassword = lhs, case .invalidPassword = rhs { return true }
        return lhs == rhs
    }
}
