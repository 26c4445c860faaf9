import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A server that asks for risk verification in front of the emulator: the answer to an SMS (or,
/// with `methods`, any) method's `challenge` is replaced by `action: riskverify` with a
/// `riskverify` link, as MSAL's clients read it (Docs/NativeAuthV2.md, "Risk verification"); a
/// `POST` to that link gets the held answer (the code was sent), or, `again` times, one more
/// `riskverify`. Every request is recorded.
final class RiskVerifyingTransport: HTTPTransport {
    static let riskPath = "/api/v2.0/risk/phone/verify"

    let inner: EmulatedTenant
    let methods: [String]
    /// The `riskverify` href to write; the tenant's own path by default.
    let href: String?
    private let state: LockedValue<(held: HTTPResponse?, again: Int, sent: [HTTPRequest])>

    init(_ inner: EmulatedTenant, methods: [String] = ["sms"], again: Int = 0, href: String? = nil) {
        self.inner = inner
        self.methods = methods
        self.href = href
        state = LockedValue((nil, again, []))
    }

    var requests: [HTTPRequest] { state.current.sent }

    func riskAnswer(_ token: String) -> HTTPResponse {
        let body =
            #"{"state":"interactionRequired","action":"riskverify","continuationToken":""# + token
            + #"","_links":{"riskverify":{"href":""# + (href ?? "/" + inner.tenantId + Self.riskPath) + #""}}}"#
        return HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        state.withLock { $0.sent.append(request) }
        let path = request.url.path
        if path.hasSuffix(Self.riskPath) {
            let body = try? JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: String]
            let answer = state.withLock { state -> HTTPResponse? in
                if state.again > 0 {
                    state.again -= 1
                    return riskAnswer("risk-again")
                }
                defer { state.held = nil }
                return body?["continuationToken"]?.hasPrefix("risk-") == true ? state.held : nil
            }
            return answer ?? HTTPResponse(statusCode: 400, headers: [:], body: Data())
        }
        let response = try await inner.send(request)
        guard path.hasSuffix("/challenge"), methods.contains(where: { path.contains("/methods/\($0)/") }),
            response.statusCode == 200
        else { return response }
        state.withLock { $0.held = response }
        return riskAnswer("risk-1")
    }
}

/// Risk verification over V2: the SMS challenge's `riskverify` hop followed once, as MSAL's
/// clients do; what they do not follow ends in a typed error, never a crash or a guess.
@Suite("V2: risk verification of an SMS method", .hangLimit)
struct RiskVerificationV2Tests {
    static let sam = "sam@example.com"
    static let samPhone = "+15550100"

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: RiskVerificationV2Tests.sam, password: EmulatorHarness.password,
                mfaMethods: [
                    EmulatedAuthMethod(id: "sam-sms", channel: "sms", address: RiskVerificationV2Tests.samPhone),
                    EmulatedAuthMethod(id: "sam-email", channel: "email", address: "sam.backup@example.com"),
                ])
        ])

    func awaiting(_ transport: RiskVerifyingTransport) async throws -> (AwaitingMFAState, [AuthMethod]) {
        let client = V2Clients.client(harness, transport: transport)
        let start = try await client.signIn(SignInParameters(username: Self.sam, password: EmulatorHarness.password))
        guard case .awaitingMFA(let state, let methods) = start else { throw TestFailure("expected awaitingMFA") }
        return (state, methods)
    }

    @Test("the SMS challenge's riskverify link is followed once with the token, then the code screen")
    func followedOnce() async throws {
        let transport = RiskVerifyingTransport(harness.tenant)
        let (awaiting, methods) = try await awaiting(transport)
        let before = transport.requests.count
        let sms = try #require(methods.first { $0.channelTargetType == .sms })
        let state = try await awaiting.requestChallenge(authMethod: sms)
        #expect(state.channelTargetType == .sms && state.codeLength == 8)
        let sent = Array(transport.requests.dropFirst(before))
        #expect(sent.count == 2, "the challenge, then the riskverify link")
        #expect(sent[1].url.path.hasSuffix(RiskVerifyingTransport.riskPath))
        let body = try #require(try JSONSerialization.jsonObject(with: sent[1].body ?? Data()) as? [String: String])
        #expect(body == ["continuationToken": "risk-1"])
        #expect(sent[1].header("Content-Type") == "application/json")
        guard case .completed = try await state.submitChallenge(harness.code(for: Self.samPhone)) else {
            throw TestFailure("expected completed")
        }
        #expect(transport.requests.count == before + 2 + 3, "then verify, resume, token")
    }

    @Test("a second riskverify in a row is a typed error, isUnexpectedResponse; nothing more is sent")
    func twiceInARow() async throws {
        let transport = RiskVerifyingTransport(harness.tenant, again: 1)
        let (awaiting, methods) = try await awaiting(transport)
        let before = transport.requests.count
        let error = try await #require(throws: MFARequestChallengeError.self) {
            try await awaiting.requestChallenge(
                authMethod: try #require(methods.first { $0.channelTargetType == .sms }))
        }
        #expect(error.isUnexpectedResponse && !error.isStateStillUsable)
        #expect(error.details.unexpected?.problem == .unknownValue(field: "action", value: "riskverify"))
        #expect(transport.requests.count == before + 2)
    }

    @Test("a riskverify for an email method is not followed: isUnexpectedResponse, as MSAL refuses it")
    func notForEmail() async throws {
        let transport = RiskVerifyingTransport(harness.tenant, methods: ["email"])
        let (awaiting, methods) = try await awaiting(transport)
        let before = transport.requests.count
        let error = try await #require(throws: MFARequestChallengeError.self) {
            try await awaiting.requestChallenge(
                authMethod: try #require(methods.first { $0.channelTargetType == .email }))
        }
        #expect(error.isUnexpectedResponse)
        #expect(transport.requests.count == before + 1)
        #expect(!transport.requests.contains { $0.url.path.hasSuffix(RiskVerifyingTransport.riskPath) })
    }

    @Test("a hostile riskverify link is refused before the token goes anywhere")
    func aHostileLink() async throws {
        let transport = RiskVerifyingTransport(
            harness.tenant, href: "https://attacker.example/t/api/v2.0/risk/phone/verify")
        let (awaiting, methods) = try await awaiting(transport)
        let before = transport.requests.count
        let error = try await #require(throws: MFARequestChallengeError.self) {
            try await awaiting.requestChallenge(
                authMethod: try #require(methods.first { $0.channelTargetType == .sms }))
        }
        #expect(error.isUnexpectedResponse)
        #expect(transport.requests.count == before + 1)
        #expect(transport.requests.allSatisfy { $0.url.host == harness.tenant.authority.host })
    }

    @Test("the first factor: an SMS method's riskverify is followed the same way, then the code screen")
    func firstFactor() async throws {
        let transport = ScriptedTransport()
        transport.then(
            "oauth2/v2.0/authorize-challenge",
            .json(
                401,
                #"{"error":"InsufficientAuthorization","continuation_token":"ct-1","sign_in":"/t/api/v2.0/signin/start"}"#
            ))
        transport.then(
            "api/v2.0/signin/start",
            .json(
                200,
                #"{"state":"interactionRequired","action":"challenge","continuationToken":"ct-2","challengeContext":{"authenticationFactor":"singleFactor"},"_embedded":{"methods":[{"id":"p1","type":"sms","hint":"+1***00","_links":{"challenge":{"href":"/t/api/v2.0/auth/methods/sms/p1/challenge"}}}]}}"#
            ))
        transport.then(
            "api/v2.0/auth/methods/sms/p1/challenge",
            .json(
                200,
                #"{"state":"interactionRequired","action":"riskverify","continuationToken":"ct-3","_links":{"riskverify":{"href":"/t/api/v2.0/risk/phone/verify"}}}"#
            ))
        transport.then(
            "api/v2.0/risk/phone/verify",
            .json(
                200,
                #"{"state":"interactionRequired","action":"verify","continuationToken":"ct-4","id":"p1","type":"sms","hint":"+1***00","codeLength":6,"_links":{"verify":{"href":"/t/api/v2.0/auth/methods/sms/p1/verify"}}}"#
            ))
        let client = V2Clients.client(harness, transport: transport)
        guard
            case .codeRequired(_, let sentTo, .sms, 6) = try await client.signIn(
                SignInParameters(username: "pat@example.com"))
        else { throw TestFailure("expected an SMS code") }
        #expect(sentTo == "+1***00")
        #expect(transport.remaining == 0 && transport.requests.count == 4)
        let body = try JSONSerialization.jsonObject(with: transport.requests[3].body ?? Data()) as? [String: String]
        #expect(body == ["continuationToken": "ct-3"])
    }
}
