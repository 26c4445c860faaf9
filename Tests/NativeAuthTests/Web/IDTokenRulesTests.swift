import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The ID token and key-set rules a hostile provider showed missing: `nbf`, `max_age` with
/// `auth_time`, a bounded clock correction, duplicate JSON members, and bounded key-set work. Each
/// refusal is a typed error that stores nothing; each bound is tried just inside and just outside.
@Suite("Web sign-in: the ID token and key-set rules", .hangLimit)
struct IDTokenRulesTests {
    static let now = 1_800_000_000
    let clock = TestClock()
    let store = InMemoryCredentialStore()

    func client(_ provider: ScriptedOpenIDProvider, store: InMemoryCredentialStore? = nil) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: store ?? self.store, configuration: configuration)
    }

    /// A provider whose ID tokens carry `extra` claims (and `exp`), signed with `header`, its
    /// answers dated `date` when given, its key set `jwks`.
    func provider(
        extra: String = "", exp: Int = now + 3_600, header: String? = nil, date: Date? = nil,
        jwks: String = WebTestSigner.jwks()
    ) -> ScriptedOpenIDProvider {
        ScriptedOpenIDProvider(jwks: [jwks]) { exchange in
            let claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, exp: exp, extra: extra)
            let token =
                header.map { WebTestSigner.token(claims: claims, header: $0) } ?? WebTestSigner.token(claims: claims)
            var answer = ScriptedOpenIDProvider.answer(idToken: token)
            if let date { answer.headers["Date"] = Self.httpDate(date) }
            return answer
        }
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// Signs in and returns the failed check, or `nil` when the sign-in succeeded.
    func failedCheck(
        _ provider: ScriptedOpenIDProvider, parameters: WebSignInParameters = WebSignInParameters()
    ) async throws -> IDTokenCheck? {
        let client = try client(provider, store: InMemoryCredentialStore())
        do {
            _ = try await client.signIn(parameters, using: InstantAgent(provider: provider))
            return nil
        } catch {
            #expect(try await client.currentAccount() == nil, "nothing is stored")
            guard let check = error.failedIDTokenCheck else {
                Issue.record("not an ID token check: \(error)")
                return .missing
            }
            return check
        }
    }

    // MARK: nbf (RFC 7519 §4.1.5)

    @Test func notBeforeHasTheSameLeewayAsIssuedAt() async throws {
        #expect(try await failedCheck(provider(extra: "\"nbf\":\(Self.now + 300)")) == nil)
        #expect(try await failedCheck(provider(extra: "\"nbf\":\(Self.now + 301)")) == .notYetValid)
        #expect(try await failedCheck(provider(extra: "\"nbf\":\(Self.now + 3_600)")) == .notYetValid)
        #expect(try await failedCheck(provider(extra: "\"nbf\":\"soon\"")) == .malformed)
    }

    // MARK: max_age and auth_time (OpenID Connect Core §3.1.2.1, §3.1.3.7 item 13)

    @Test func maxAgeNeedsARecentEnoughAuthTime() async throws {
        let maxAge = WebSignInParameters(maxAge: 60)
        #expect(try await failedCheck(provider(), parameters: maxAge) == .authTime, "auth_time missing")
        #expect(try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 120)"), parameters: maxAge) == nil)
        #expect(
            try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 121)"), parameters: maxAge) == .authTime)
        #expect(
            try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 3_600)"), parameters: maxAge) == .authTime
        )
        #expect(
            try await failedCheck(provider(extra: "\"auth_time\":\(Self.now + 301)"), parameters: maxAge) == .authTime,
            "an authentication in the future")
        #expect(
            try await failedCheck(provider(extra: "\"auth_time\":\"recent\""), parameters: maxAge) == .authTime)
        // max_age 0: the user must have just authenticated.
        let now = WebSignInParameters(maxAge: 0)
        #expect(try await failedCheck(provider(extra: "\"auth_time\":\(Self.now)"), parameters: now) == nil)
        #expect(try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 60)"), parameters: now) == nil)
        #expect(try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 61)"), parameters: now) == .authTime)
        // RFC 9470's example: max_age 5; a sign-in of two minutes ago is too old.
        #expect(
            try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 120)"), parameters: .init(maxAge: 5))
                == .authTime)
        // Without max_age, auth_time is not checked.
        #expect(try await failedCheck(provider(extra: "\"auth_time\":\(Self.now - 86_400)")) == nil)
        #expect(try await failedCheck(provider()) == nil)
    }

    // MARK: A step-up's acr_values (OpenID Connect Core §3.1.3.7 item 12, RFC 9470 §5)

    @Test func aStepUpsACRMustBeOneOfItsValuesWhenTheTokenHasOne() async throws {
        let stepUp = WebSignInParameters(stepUp: StepUpChallenge(acrValues: ["urn:gold", "urn:silver"]))
        let fresh = "\"auth_time\":\(Self.now)"
        #expect(try await failedCheck(provider(extra: "\"acr\":\"urn:silver\""), parameters: stepUp) == nil)
        #expect(
            try await failedCheck(provider(extra: "\"acr\":\"urn:bronze\""), parameters: stepUp)
                == .authenticationContext)
        #expect(
            try await failedCheck(provider(extra: "\"acr\":[\"urn:gold\"]"), parameters: stepUp)
                == .authenticationContext, "not a string")
        #expect(try await failedCheck(provider(), parameters: stepUp) == nil, "a voluntary claim may be left out")
        // Asked for by the app as a preference, the values are not checked (Core §3.1.2.1).
        let preference = WebSignInParameters(acrValues: ["urn:gold"])
        #expect(try await failedCheck(provider(extra: "\"acr\":\"urn:bronze\""), parameters: preference) == nil)
        // With max_age too, both hold.
        let both = WebSignInParameters(stepUp: StepUpChallenge(acrValues: ["urn:gold"], maxAge: 5))
        #expect(try await failedCheck(provider(extra: "\"acr\":\"urn:gold\"," + fresh), parameters: both) == nil)
        #expect(try await failedCheck(provider(extra: "\"acr\":\"urn:gold\""), parameters: both) == .authTime)
        #expect(
            try await failedCheck(provider(extra: "\"acr\":\"urn:tin\"," + fresh), parameters: both)
                == .authenticationContext)
    }

    @Test func aBrowserStepUpSendsTheChallengeAndRefusesWhatCannotBeSent() throws {
        let parameters = WebSignInParameters(
            stepUp: StepUpChallenge(acrValues: ["urn:gold", "urn:silver"], maxAge: 5, scopes: ["orders.write"]),
            scopes: ["offline_access"], loginHint: "ada@example.com")
        #expect(parameters.scopeList == ["openid", "offline_access", "orders.write"])
        #expect(parameters.maxAge == 5 && parameters.acrValues == ["urn:gold", "urn:silver"])
        let request = try AuthorizationRequest(
            metadata: testMetadata(), clientId: "web-app", redirectURI: URL(string: "com.example.app:/callback")!,
            parameters: parameters)
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "acr_values" }?.value == "urn:gold urn:silver")
        #expect(query.first { $0.name == "max_age" }?.value == "5")
        #expect(request.requiredACRValues == ["urn:gold", "urn:silver"])
        for bad in [StepUpChallenge(acrValues: [""]), StepUpChallenge(acrValues: ["a b"]), StepUpChallenge(maxAge: -1)]
        {
            #expect(throws: WebSignInError.self) { try WebSignInParameters(stepUp: bad).validate() }
        }
    }

    @Test func maxAgeIsSentAndARefreshDoesNotCheckIt() async throws {
        let provider = provider(extra: "\"auth_time\":\(Self.now - 30)")
        let client = try client(provider)
        let agent = InstantAgent(provider: provider)
        let account = try await client.signIn(WebSignInParameters(maxAge: 60), using: agent)
        #expect(agent.values("max_age") == ["60"])
        // An hour later the refresh's ID token keeps the original auth_time: it is no new
        // authentication, and max_age does not apply to it.
        clock.advance(by: 3_600)
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedOpenIDProvider.answer(
                    idToken: WebTestSigner.token(
                        claims: ScriptedOpenIDProvider.claims(
                            nonce: "", exp: Self.now + 7_200, iat: Self.now + 3_600,
                            extra: "\"auth_time\":\(Self.now - 30)")), access: "web-access-2")
            }
        }
        #expect(try await account.getAccessToken(forceRefresh: true).accessToken == "web-access-2")
    }

    // MARK: The clock correction is bounded

    @Test func theProvidersDateCorrectsTheClockByAtMostTwoMinutes() async throws {
        // The token expired 400 s ago on our clock; the leeway is 300 s.
        let expired = Self.now - 400
        let base = Date(timeIntervalSince1970: TimeInterval(Self.now))
        #expect(try await failedCheck(provider(exp: expired)) == .expired)
        // The provider's clock 120 s behind ours: believed, and the token is within the leeway on its clock.
        #expect(try await failedCheck(provider(exp: expired, date: base.addingTimeInterval(-120))) == nil)
        // 121 s behind: not believed; the local clock decides.
        #expect(try await failedCheck(provider(exp: expired, date: base.addingTimeInterval(-121))) == .expired)
        #expect(try await failedCheck(provider(exp: expired, date: base.addingTimeInterval(-3_600))) == .expired)
        // The same bound the other way: a token valid from 420 s in our future.
        #expect(
            try await failedCheck(provider(extra: "\"nbf\":\(Self.now + 420)", date: base.addingTimeInterval(120)))
                == nil)
        #expect(
            try await failedCheck(provider(extra: "\"nbf\":\(Self.now + 420)", date: base.addingTimeInterval(121)))
                == .notYetValid)
    }

    // MARK: Duplicate JSON members (RFC 7515 §5.2, RFC 7519 §4)

    @Test func duplicateMembersInTheClaimsOrTheHeaderAreRefused() async throws {
        #expect(try await failedCheck(provider(extra: "\"sub\":\"user-2\"")) == .malformed, "two sub claims")
        #expect(
            try await failedCheck(provider(extra: "\"address\":{\"country\":\"FR\",\"country\":\"DE\"}")) == .malformed)
        #expect(
            try await failedCheck(provider(header: "{\"alg\":\"RS256\",\"kid\":\"test-key\",\"kid\":\"other\"}"))
                == .malformed)
        #expect(
            try await failedCheck(provider(header: "{\"alg\":\"none\",\"alg\":\"RS256\",\"kid\":\"test-key\"}"))
                == .malformed)
        // The same members once each pass.
        #expect(try await failedCheck(provider(extra: "\"address\":{\"country\":\"FR\"}")) == nil)
    }
}
