import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// What a hostile server does to one answer of a V2 journey (Docs/NativeAuthV2Protocol.md, "What the SDK
/// reads and sends").
enum V2Hostility: String, CaseIterable, Sendable {
    /// Every href points at another host, an `http` URL, a `//host` network path, a user-info, a
    /// fragment, a script, a dot segment or a non-ASCII path.
    case foreignLinks
    /// Every href is templated (`{tenant}` elsewhere than first, or another placeholder).
    case templatedLinks
    /// The links are gone (no `_links`, no method links, no journey links), or not objects.
    case missingLinks
    /// This answer, once captured, is the answer to every later request: the server sends the
    /// client back to the same step forever.
    case loop
    /// `_embedded.methods` holds 10,000 methods.
    case hugeMethodList
    /// `challengeContext.authenticationFactor` is unknown, empty, or not a string.
    case unknownFactor
    /// `action` is one the SDK does not know (`enroll`, `register`, …) or not a string.
    case unknownAction
    /// `state` is one the SDK does not know, or not a string.
    case unknownState
    /// Members of the wrong JSON type (numbers, arrays, objects, `null` where strings are due).
    case wrongTypes
    /// Strings of up to 1.2 MB (past the 1 MiB cap sometimes).
    case hugeStrings
    /// An array nested up to 100,000 levels deep inside the answer.
    case deepNesting
    /// The body cut short.
    case truncated
    /// The body with another status, from 100 to 599.
    case wrongStatus
}

/// A V2 server that is the emulated tenant but for one answer, which it makes hostile (and, for
/// ``V2Hostility/loop``, every answer after it). It records every request and which came after
/// the hostile answer, and the secrets it saw on the wire.
final class HostileV2Transport: HTTPTransport, Sendable {
    struct Sent: Sendable {
        var request: HTTPRequest
        /// Which answer it got (0-based): the hostile one is ``HostileV2Transport/target``.
        var index: Int
    }

    private struct State: Sendable {
        var rng: SplitMix64
        var answers = 0
        var sent: [Sent] = []
        var hostileServed = false
        var looped: HTTPResponse?
        var secrets: Set<String> = []
    }

    let tenant: EmulatedTenant
    let hostility: V2Hostility
    /// Which answer (0-based, counting every answer) is made hostile.
    let target: Int
    /// More requests than this in one case is a loop the SDK did not stop: the transport stops answering.
    static let requestLimit = 100
    private let state: Locked<State>
    /// Extra yields for the watchdog, grown by every large body served.
    let credit = Locked(0)

    init(tenant: EmulatedTenant, hostility: V2Hostility, target: Int, seed: UInt64) {
        self.tenant = tenant
        self.hostility = hostility
        self.target = target
        state = Locked(State(rng: SplitMix64(seed: seed)))
    }

    var sent: [Sent] { state.withLock { $0.sent } }
    var hostileServed: Bool { state.withLock { $0.hostileServed } }
    var secrets: Set<String> { state.withLock { $0.secrets } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (index, looped, over) = state.withLock { state -> (Int, HTTPResponse?, Bool) in
            state.sent.append(Sent(request: request, index: state.answers))
            Self.collectSecrets(request.body ?? Data(), into: &state.secrets)
            defer { state.answers += 1 }
            return (state.answers, state.looped, state.sent.count > Self.requestLimit)
        }
        if over { throw URLError(.resourceUnavailable) }
        if let looped { return looped }
        let response = try await tenant.send(request)
        state.withLock { Self.collectSecrets(response.body, into: &$0.secrets) }
        guard index == target else { return response }
        let hostile = state.withLock { state -> HTTPResponse in
            state.hostileServed = true
            let made = Self.make(hostility, response, rng: &state.rng)
            if hostility == .loop { state.looped = made }
            return made
        }
        if hostile.body.count > 4096 {
            credit.withLock { $0 += hostile.body.count / 1024 * Watchdog.yieldsPerKilobyte }
        }
        return hostile
    }

    /// The values of the secret members of a JSON or form body: continuation tokens, codes,
    /// passwords, authorization codes and tokens.
    static func collectSecrets(_ body: Data, into secrets: inout Set<String>) {
        let keys: Set<String> = [
            "continuationToken", "continuation_token", "otp", "password", "newPassword", "code", "authorizationCode",
            "access_token", "refresh_token", "id_token", "oob", "new_password",
        ]
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            for (key, value) in object where keys.contains(key) {
                if let text = value as? String, text.count >= 6 { secrets.insert(text) }
            }
            if let attributes = object["attributes"] as? [String: Any], let password = attributes["password"] as? String
            {
                secrets.insert(password)
            }
            return
        }
        for field in String(decoding: body.prefix(65_536), as: UTF8.self).split(separator: "&") {
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, keys.contains(pair[0]) else { continue }
            let value = pair[1].removingPercentEncoding ?? pair[1]
            if value.count >= 6 { secrets.insert(value) }
        }
    }

    // MARK: - Making an answer hostile

    static func make(_ hostility: V2Hostility, _ response: HTTPResponse, rng: inout SplitMix64) -> HTTPResponse {
        var response = response
        switch hostility {
        case .truncated:
            response.body = response.body.prefix(rng.int(0...max(0, response.body.count - 1)))
            return response
        case .wrongStatus:
            response.statusCode =
                rng.chance(0.6)
                ? rng.pick([100, 101, 199, 201, 204, 206, 301, 302, 304, 400, 401, 403, 404, 409, 429, 500, 503])
                : rng.int(100...599)
            return response
        case .deepNesting:
            let depth = rng.pick([65, 100, 1_000, 10_000, 100_000])
            let text = String(decoding: response.body, as: UTF8.self)
            guard let brace = text.firstIndex(of: "{") else { return response }
            let rest = text[text.index(after: brace)...]
            let separator = rest.trimmingCharacters(in: .whitespaces).hasPrefix("}") ? "" : ","
            let deep =
                "\"deep\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + separator
            response.body = Data((text[...brace] + deep + rest).utf8)
            return response
        default:
            break
        }
        guard var object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] else {
            return response
        }
        switch hostility {
        case .foreignLinks, .templatedLinks:
            object = rewriteHrefs(object, rng: &rng) { path, rng in
                hostility == .foreignLinks ? foreign(path, rng: &rng) : templated(path, rng: &rng)
            }
        case .missingLinks:
            object = removeLinks(object, rng: &rng)
        case .loop:
            break
        case .hugeMethodList:
            // 10,000 small methods, written as text (a list this long through JSONSerialization
            // takes a third of a second), the answer's own first method among them at a random place:
            // first, at the SDK's cap of 32, just past it, or last.
            let methods = (object["_embedded"] as? [String: Any])?["methods"] as? [Any]
            object["_embedded"] = nil
            let real = methods?.first.flatMap { try? JSONSerialization.data(withJSONObject: $0) }
            var entries = [String](repeating: #"{"id":"m","type":"email"}"#, count: 10_000)
            if let real { entries[rng.pick([0, 31, 32, 9_999])] = String(decoding: real, as: UTF8.self) }
            guard let data = try? JSONSerialization.data(withJSONObject: object) else { return response }
            var text = String(decoding: data, as: UTF8.self)
            guard text.hasSuffix("}") else { return response }
            text.removeLast()
            text +=
                (text.hasSuffix("{") ? "" : ",") + #""_embedded":{"methods":["# + entries.joined(separator: ",") + "]}}"
            response.body = Data(text.utf8)
            return response
        case .unknownFactor:
            object["challengeContext"] = [
                "authenticationFactor": rng.pick(
                    [
                        "tripleFactor", "", "MULTIFACTOR ", "singlefactor\u{0}", 42, NSNull(), ["multiFactor"],
                    ] as [Any])
            ]
        case .unknownAction:
            object["action"] = rng.pick(
                [
                    "enroll", "register", "activate", "riskverify", "destroy", "", "verify2",
                    String(repeating: "a", count: 5_000), 7,
                    ["verify"], NSNull(),
                ] as [Any])
        case .unknownState:
            object["state"] = rng.pick(
                [
                    "interactionrequired2", "done", "", "continued", String(repeating: "s", count: 5_000), true,
                    ["continue"], NSNull(),
                ] as [Any])
        case .wrongTypes:
            object = retype(object, rng: &rng)
        case .hugeStrings:
            let length = rng.pick([10_000, 200_000, 900_000, 1_200_000])
            let huge = String(repeating: rng.pick(["a", "é", "%", "{", "/"]), count: length)
            let key = rng.pick(["hint", "message", "error_description", "id", "type", "continuationToken", "href"])
            object = replacingStrings(object, named: key, with: huge)
            // A hint of its own letter, so that a shown hint never contains a huge token sent back.
            if key == "href" || rng.chance(0.3) { object["hint"] = String(repeating: "h", count: length) }
        case .truncated, .wrongStatus, .deepNesting:
            break
        }
        response.body = (try? JSONSerialization.data(withJSONObject: object)) ?? response.body
        return response
    }

    /// A hostile URL for `path`.
    static func foreign(_ path: String, rng: inout SplitMix64) -> String {
        rng.pick([
            "https://evil.example.net" + path, "http://contoso.ciamlogin.com" + path, "//evil.example.net" + path,
            "https://user:pw@contoso.ciamlogin.com" + path, path + "#fragment", "javascript:alert(1)",
            "ftp://evil.example.net" + path, "https://contoso.ciamlogin.com:8443" + path, "/api/../../evil" + path,
            "/%2e%2e/api" + path, "\\\\evil.example.net" + path, "/api/é" + path, " " + path,
            "https://evil.example.net/contoso.onmicrosoft.com/api/v2.0/signin/start",
            "HTTPS://EVIL.EXAMPLE.NET" + path, "https://contoso.ciamlogin.com.evil.example.net" + path,
        ])
    }

    /// A templated href for `path`.
    static func templated(_ path: String, rng: inout SplitMix64) -> String {
        rng.pick([
            "/{tenant}/{tenant}" + path, "{host}" + path, path + "{?dc}", "/api/{method}/challenge",
            "/{tenant}" + path + "/{id}", "https://{tenant}.ciamlogin.com" + path, "/{" + path, path + "}",
        ])
    }

    /// `object` with every href (an `href` member, a journey link string) rewritten by `hostile`.
    static func rewriteHrefs(
        _ value: [String: Any], rng: inout SplitMix64, _ hostile: (String, inout SplitMix64) -> String
    ) -> [String: Any] {
        var object = value
        for (key, member) in object {
            if ["href", "sign_in", "sign_up", "reset_password", "resetPassword"].contains(key),
                let path = member as? String
            {
                object[key] = hostile(path, &rng)
            } else if let nested = member as? [String: Any] {
                object[key] = rewriteHrefs(nested, rng: &rng, hostile)
            } else if let list = member as? [Any] {
                object[key] = list.map { item -> Any in
                    guard let nested = item as? [String: Any] else { return item }
                    return rewriteHrefs(nested, rng: &rng, hostile)
                }
            }
        }
        return object
    }

    static func removeLinks(_ value: [String: Any], rng: inout SplitMix64) -> [String: Any] {
        var object = value
        let replacement: Any? = rng.pick(
            [nil, "", 1, ["href": NSNull()], [String: Any](), ["self": ["href": "/x"]]] as [Any?])
        for (key, member) in object {
            if ["_links", "sign_in", "sign_up", "reset_password", "resetPassword"].contains(key) {
                object[key] = replacement
            } else if let nested = member as? [String: Any] {
                object[key] = removeLinks(nested, rng: &rng)
            } else if let list = member as? [Any] {
                object[key] = list.map { item -> Any in
                    guard let nested = item as? [String: Any] else { return item }
                    return removeLinks(nested, rng: &rng)
                }
            }
        }
        return object
    }

    /// `object` with about a third of its members, at every depth, of another JSON type.
    static func retype(_ value: [String: Any], rng: inout SplitMix64) -> [String: Any] {
        var object = value
        for (key, member) in object {
            if let nested = member as? [String: Any], rng.chance(0.6) {
                object[key] = retype(nested, rng: &rng)
            } else if rng.chance(0.35) {
                object[key] = rng.pick(
                    [
                        1, -1, 1e300, true, NSNull(), [Any](), [1, 2], ["href": 5], "", "x",
                        [String](repeating: "m", count: 3),
                    ] as [Any])
            }
        }
        return object
    }

    static func replacingStrings(_ value: [String: Any], named name: String, with text: String) -> [String: Any] {
        var object = value
        for (key, member) in object {
            if key == name, member is String {
                object[key] = text
            } else if let nested = member as? [String: Any] {
                object[key] = replacingStrings(nested, named: name, with: text)
            } else if let list = member as? [Any] {
                object[key] = list.map { item -> Any in
                    guard let nested = item as? [String: Any] else { return item }
                    return replacingStrings(nested, named: name, with: text)
                }
            }
        }
        return object
    }
}

/// One generated case: a journey on a fresh tenant, one of its answers made hostile.
struct V2FuzzCase: Sendable {
    enum Journey: String, CaseIterable, Sendable {
        case signInPassword, signInPasswordUpFront, signInCode, signInMFA, signUp, signUpNoPassword, resetPassword
        case signUpOrSignIn
    }

    let seed: UInt64
    let journey: Journey
    let hostility: V2Hostility
    let target: Int
    let resetPolls: Int

    init(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        self.seed = seed
        journey = rng.pick(Journey.allCases)
        hostility = rng.pick(V2Hostility.allCases)
        target = rng.int(0...7)
        resetPolls = rng.int(0...2)
    }

    var description: String { "\(journey) with \(hostility) on answer #\(target)" }

    static let password = EmulatorHarness.password
    static let newUser = "fuzz.new@example.com"
    static let newPassword = "N3w-Fuzz-Pass!"

    /// Runs the journey, moving each state forward with the right input, and checks every step.
    func run() async -> (problems: [String], actions: Int, hostileServed: Bool) {
        let harness = EmulatorHarness(seed: seed)
        harness.tenant.configure {
            $0.resetPollsBeforeCompletion = resetPolls
            $0.resetPollInterval = 1
        }
        let transport = HostileV2Transport(tenant: harness.tenant, hostility: hostility, target: target, seed: seed)
        let client = V2Clients.client(harness, transport: transport)
        let mover = advanceWhileSleeping(harness.clock)
        defer { mover.cancel() }
        var problems = Problems()
        var rendered: [String] = []
        var outcome = await start(client)
        var actions = 1
        var sentBefore = 0
        while true {
            let sent = transport.sent
            let mine = sent.dropFirst(sentBefore)
            sentBefore = sent.count
            check(outcome, requests: Array(mine), transport: transport, tenant: harness.tenant, into: &problems)
            rendered += render(outcome)
            guard case .state(let state) = outcome.outcome, actions < 10 else { break }
            outcome =
                await state.perform(state.kind.forwardCall, input(for: state, harness: harness))
                ?? FlowActionResult(outcome: .unknown("no forward call"), declaredError: "")
            actions += 1
        }
        // No secret in what the app can show or log.
        let secrets = transport.secrets.union([Self.password, Self.newPassword]).union(
            harness.tenant.outbox.map(\.code)
        )
        .filter { $0.count >= 6 }
        rendered += harness.logger.records.map { "\($0.message) \($0.metadata)" }
        for text in rendered {
            if let secret = secrets.first(where: { text.contains($0) }) {
                problems.add("a secret (\(secret.prefix(4))…) shows in: \(text.prefix(160))")
                break
            }
        }
        return (problems.list, actions, transport.hostileServed)
    }

    private func start(_ client: NativeAuthClient) async -> FlowActionResult {
        switch journey {
        case .signInPassword: await client.start(.signIn, username: "ada@example.com")
        case .signInPasswordUpFront: await client.start(.signIn, username: "ada@example.com", password: Self.password)
        case .signInCode: await client.start(.signIn, username: "grace@example.com", password: Self.password)
        case .signInMFA: await client.start(.signIn, username: "alan@example.com", password: Self.password)
        case .signUp: await client.start(.signUp, username: Self.newUser, password: Self.password)
        case .signUpNoPassword: await client.start(.signUp, username: Self.newUser)
        case .resetPassword: await client.start(.resetPassword, username: "ada@example.com")
        case .signUpOrSignIn: await client.start(.signUpOrSignIn, username: Self.newUser)
        }
    }

    private func input(for state: FlowState, harness: EmulatorHarness) -> FlowActionInput {
        let code = { (address: String) in harness.tenant.lastCode(sentTo: address) ?? "00000000" }
        switch state.kind {
        case .signInCode: return FlowActionInput(code: code("grace@example.com"))
        case .mfaRequired: return FlowActionInput(code: code("alan.backup@example.com"))
        case .signUpCode, .signUpOrSignInCode: return FlowActionInput(code: code(Self.newUser))
        case .resetCode: return FlowActionInput(code: code("ada@example.com"))
        case .signInPassword, .signUpPassword: return FlowActionInput(password: Self.password)
        case .resetPassword: return FlowActionInput(password: Self.newPassword)
        case .signUpAttributes: return FlowActionInput(attributes: ["city": "Oslo"])
        default: return FlowActionInput()
        }
    }

    /// Every step ends typed, bounded, on the authority's host only, and sends nothing after an
    /// answer it refused.
    private func check(
        _ result: FlowActionResult, requests: [HostileV2Transport.Sent], transport: HostileV2Transport,
        tenant: EmulatedTenant, into problems: inout Problems
    ) {
        switch result.outcome {
        case .unknown(let text):
            problems.add("an outcome the catalogue does not know: \(text)")
        case .error(let error, _):
            let type = String(describing: Swift.type(of: error))
            problems.check(type == result.declaredError, "threw \(type), declares \(result.declaredError)")
            problems.check(
                !error.description.isEmpty && error.errorDescription != nil, "an error with no description: \(type)")
        case .state, .completed, .attributesInvalid:
            break
        }
        problems.check(requests.count <= 12, "one action sent \(requests.count) requests")
        let authority = URL(string: tenant.authority.absoluteString)
        for sent in requests {
            let url = sent.request.url
            if url.scheme != "https" || url.host?.lowercased() != authority?.host?.lowercased() || url.port != nil
                || url.user != nil
            {
                problems.add("a request left the authority: \(sent.request.method) \(url.absoluteString.prefix(120))")
            }
        }
        // An action the hostile answer ended sent nothing after it: no password, code or token went
        // anywhere once the answer was refused. (A loop is refused only after some turns.)
        if case .error(let error, _) = result.outcome, hostility != .loop,
            error.isUnexpectedResponse || error.isBrowserRequired,
            requests.contains(where: { $0.index == transport.target })
        {
            let after = requests.filter { $0.index > transport.target }
            if !after.isEmpty {
                problems.add(
                    "\(after.count) request(s) sent after the refused answer: "
                        + after.map { "\($0.request.method) \($0.request.url.path)" }.joined(separator: ", "))
            }
        }
    }

    private func render(_ result: FlowActionResult) -> [String] {
        var texts = result.shown
        switch result.outcome {
        case .state(let state):
            texts += [state.description, String(reflecting: state.object)]
            var dumped = ""
            dump(state.object, to: &dumped)
            texts.append(dumped)
        case .completed(let account):
            texts.append(account.description)
        case .error(let error, _):
            texts += [error.description, error.debugDescription, error.errorDescription ?? ""]
        case .attributesInvalid(let names):
            texts += names
        case .unknown(let text):
            texts.append(text)
        }
        return texts
    }
}

/// Hostile HAL documents through the V2 flows' public API: links to other hosts, `http`,
/// network-path and templated links, missing links, answers that loop, 10,000-method lists, unknown
/// factors, actions and states, wrong member types, huge strings, deep nesting, truncated bodies,
/// wrong statuses. Every step must end in a result or its declared error, within the watchdog and
/// a bound on requests, send nothing to any host but the authority's, send nothing after an
/// answer it refused, and show no secret in any description, dump or log record.
///
/// `NATIVEAUTH_FUZZ_V2_CASES=<n>` runs n cases (default 600); `NATIVEAUTH_FUZZ_SEED=0x…` replays one.
@Suite("Fuzz: hostile V2 documents through the flows", .hangLimit, .cpuHeavy)
struct FuzzV2FlowTests {
    @Test func hostileV2DocumentsEndTypedBoundedAndLeakNothing() async {
        let counts = Locked([String: Int]())
        let summary = await FuzzRunner(target: .v2Flows).run { seed in
            let fuzzCase = V2FuzzCase(seed: seed)
            return FuzzCase(size: 100_000) {
                let (problems, actions, served) = await fuzzCase.run()
                counts.withLock {
                    $0["hostility \(fuzzCase.hostility)", default: 0] += 1
                    $0["actions", default: 0] += actions
                    if served { $0["hostile answer served", default: 0] += 1 }
                }
                return problems.map { "\(fuzzCase.description): \($0)" }
            }
        }
        let tally = counts.current
        let kinds = V2Hostility.allCases.map { "\($0) \(tally["hostility \($0)"] ?? 0)" }.joined(separator: ", ")
        print(
            "fuzz v2Flows: \(tally["actions"] ?? 0) actions, a hostile answer served in "
                + "\(tally["hostile answer served"] ?? 0) of \(summary.cases) cases (\(kinds))")
        #expect(summary.cases > 0)
        if FuzzSettings.replaySeed == nil {
            #expect(
                (tally["hostile answer served"] ?? 0) * 2 > summary.cases, "most cases must meet their hostile answer")
        }
    }

    /// A loop (the same `action: challenge` for ever) ends in a typed error after a bounded number
    /// of requests, shown directly.
    @Test func aServerThatSendsTheClientBackToTheSameStepForeverIsStopped() async throws {
        let harness = EmulatorHarness()
        // Answer #2 is the first factor's `action: challenge` for an email-code user.
        let transport = HostileV2Transport(tenant: harness.tenant, hostility: .loop, target: 1, seed: 1)
        let client = V2Clients.client(harness, transport: transport)
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "grace@example.com"))
        }
        #expect(error.isUnexpectedResponse)
        #expect(transport.sent.count <= 4)
    }
}
