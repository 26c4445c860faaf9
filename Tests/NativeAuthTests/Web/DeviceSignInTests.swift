import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// The device authorization grant (RFC 8628) on a scripted provider, with a clock that records
/// every sleep: the request form, the polling schedule (`interval`, `slow_down`), every way a
/// wait ends, malformed answers and privacy.
@Suite("Device code sign-in (RFC 8628)", .hangLimit)
struct DeviceSignInTests {
    let clock = TestClock(advancesOnSleep: true)
    let store = InMemoryCredentialStore()
    let logger = InMemoryLogger(minimumLevel: .trace)
    static let storeKey = "nativeauth.web.\(ScriptedOpenIDProvider.issuer).web-app"

    func client(_ provider: ScriptedOpenIDProvider, clock: (any NativeAuthClock)? = nil) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock ?? self.clock
        configuration.logger = logger
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: store,
            configuration: configuration)
    }

    /// Runs `body`, which must throw a `WebSignInError`, and returns the error.
    func failure<T>(_ body: () async throws(WebSignInError) -> T, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> WebSignInError
    {
        do {
            _ = try await body()
        } catch {
            return error
        }
        Issue.record("expected a WebSignInError", sourceLocation: sourceLocation)
        throw TestFailure("no error")
    }

    // MARK: Polling

    @Test func pendingThenSuccessHonoursTheIntervalAndSignsIn() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(
                interval: "3",
                extra: "\"verification_uri_complete\":\"https://login.example.com/device?code=WDJB-MJHT\""),
            steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.success()])
        let client = try client(provider)
        var events = client.sessionEvents().makeAsyncIterator()
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: ["offline_access"]))
        #expect(state.userCode == "WDJB-MJHT")
        #expect(state.verificationURI.absoluteString == "https://login.example.com/device")
        #expect(state.verificationURIComplete?.absoluteString == "https://login.example.com/device?code=WDJB-MJHT")
        #expect(state.expiresOn == Date(timeIntervalSince1970: 1_800_000_600))
        #expect(state.interval == 3)
        #expect(provider.requests(to: "/token").isEmpty, "nothing is polled before the wait")

        let account = try await state.waitForCompletion()
        #expect(clock.sleeps == [3, 3, 3], "waits the interval before each of the three polls")
        #expect(provider.requests(to: "/token").count == 3)
        #expect(account.account.username == "grace@example.com")
        #expect(account.account.claims.subject == "user-7")
        #expect(try await account.getAccessToken().accessToken == ScriptedOpenIDProvider.accessToken)
        guard case .signedIn(let signedIn)? = await events.next() else { throw TestFailure("no signedIn event") }
        #expect(signedIn.identifier == account.account.identifier)
        // Stored like a browser sign-in: a new client on the same store restores it with no request.
        let before = provider.requests.count
        let restored = try #require(try await self.client(provider).currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        #expect(provider.requests.count == before)
        // Single use.
        let again = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(again.isStateAlreadyUsed)
        #expect(provider.requests(to: "/token").count == 3, "a spent state sends nothing")
    }

    @Test func theTokenRequestCarriesTheDeviceCodeGrant() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.success()])
        let correlationId = UUID()
        let state = try await client(provider).startDeviceSignIn(
            WebDeviceSignInParameters(correlationId: correlationId))
        _ = try await state.waitForCompletion()
        let request = try #require(provider.requests(to: "/token").first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.header("client-request-id") == correlationId.uuidString.lowercased())
        #expect(
            provider.forms(to: "/token") == [
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code"
                    + "&device_code=\(ScriptedOpenIDProvider.deviceCode)&client_id=web-app"
            ])
    }

    @Test func theIntervalIsFiveSecondsWhenTheProviderSendsNone() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(interval: nil),
            steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.success()])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        #expect(state.interval == 5)
        _ = try await state.waitForCompletion()
        #expect(clock.sleeps == [5, 5])
    }

    @Test func aZeroIntervalStillWaitsOneSecond() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(interval: "0"),
            steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.success()])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        _ = try await state.waitForCompletion()
        #expect(clock.sleeps == [1, 1])
    }

    @Test func slowDownAddsFiveSecondsForGood() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(interval: "2"),
            steps: [
                ScriptedOpenIDProvider.slowDown, ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.slowDown,
                ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.success(),
            ])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        _ = try await state.waitForCompletion()
        #expect(clock.sleeps == [2, 7, 7, 12, 12])
        #expect(state.interval == 12)
    }

    @Test func accessDeniedEndsTheWaitAndSpendsTheState() async throws {
        let provider = ScriptedOpenIDProvider(
            steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.error("access_denied")])
        let client = try client(provider)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isAccessDenied)
        #expect(error.serverError == "access_denied")
        #expect(error.correlationId == state.correlationId)
        #expect(provider.requests(to: "/token").count == 2)
        #expect(try await client.currentAccount() == nil)
        #expect(try await store.data(forKey: Self.storeKey) == nil)
        let again = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(again.isStateAlreadyUsed)
        #expect(provider.requests(to: "/token").count == 2)
    }

    @Test func expiredTokenFromTheProviderIsExpired() async throws {
        let provider = ScriptedOpenIDProvider(
            steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.error("expired_token")])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isExpired)
        #expect(error.isServerError, "the provider said so")
        #expect(error.serverError == "expired_token")
        #expect(!error.isAccessDenied)
    }

    @Test func theWaitStopsAtTheExpiryWithoutAnotherRequest() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(expiresIn: "12", interval: "5"),
            steps: [ScriptedOpenIDProvider.pending])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isExpired)
        #expect(!error.isServerError, "the client stopped, the provider said nothing")
        #expect(error.serverError == nil)
        #expect(clock.sleeps == [5, 5, 2], "polls at 5 s and 10 s, then waits out the last 2 s")
        #expect(provider.requests(to: "/token").count == 2)
        #expect(clock.now() == state.expiresOn)
        let again = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(again.isStateAlreadyUsed)
    }

    @Test func aPollFallingExactlyOnTheExpiryIsNotSent() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(expiresIn: "10", interval: "5"),
            steps: [ScriptedOpenIDProvider.pending])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isExpired)
        #expect(clock.sleeps == [5, 5])
        #expect(provider.requests(to: "/token").count == 1)
    }

    @Test func pollsWithoutAnAnswerBackOffThenGiveUpLeavingTheStateUsable() async throws {
        let provider = ScriptedOpenIDProvider(
            steps: [.noAnswer, .noAnswer, ScriptedOpenIDProvider.pending, .noAnswer, .noAnswer, .noAnswer, .noAnswer])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isNetworkError)
        #expect(
            clock.sleeps == [5, 10, 20, 5, 10, 20, 40], "doubles after each poll without an answer, resets after one")
        #expect(provider.requests(to: "/token").count == 7)
        // The code still lives: the same state can wait again.
        provider.script([ScriptedOpenIDProvider.success()])
        let account = try await state.waitForCompletion()
        #expect(account.account.username == "grace@example.com")
        #expect(clock.sleeps.last == 5)
    }

    static let serverFailures: [ScriptedOpenIDProvider.Step] = [
        .answer(HTTPResponse(statusCode: 503)), ScriptedOpenIDProvider.error("server_error", status: 500),
        ScriptedOpenIDProvider.error("temporarily_unavailable", status: 400),
    ]

    @Test(arguments: serverFailures)
    func aServerFailureLeavesTheStateUsableAndTheWaitCanResume(failure step: ScriptedOpenIDProvider.Step)
        async throws
    {
        let provider = ScriptedOpenIDProvider(steps: [step, ScriptedOpenIDProvider.success()])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isServerError)
        let account = try await state.waitForCompletion()
        #expect(account.account.username == "grace@example.com")
        #expect(clock.sleeps == [5, 5])
    }

    @Test func anotherRefusalSpendsTheState() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.error("invalid_grant")])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.isInvalidGrant)
        let again = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(again.isStateAlreadyUsed)
    }

    // MARK: Cancellation and single flight

    @Test func cancellingStopsTheWaitAtOnceAndTheStateCanWaitAgain() async throws {
        let manual = ManualClock()
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.success()])
        let state = try await client(provider, clock: manual).startDeviceSignIn(WebDeviceSignInParameters())
        let first = Task { await outcome { () async throws(WebSignInError) in try await state.waitForCompletion() } }
        try await requireUntil("the wait to sleep") { manual.sleepers == 1 }
        manual.advance(by: 5)
        try await requireUntil("the first poll and the next sleep") {
            provider.requests(to: "/token").count == 1 && manual.sleepers == 1
        }
        first.cancel()
        let error = try await failure { () async throws(WebSignInError) in try await first.value.get() }
        #expect(error.isCancelled)
        #expect(provider.requests(to: "/token").count == 1, "no request after the cancellation")
        manual.advance(by: 60)
        #expect(provider.requests(to: "/token").count == 1)
        #expect(manual.sleepers == 0)

        // Cancelled is not spent: wait again on the same state.
        let second = Task { await outcome { () async throws(WebSignInError) in try await state.waitForCompletion() } }
        try await requireUntil("the second wait to sleep") { manual.sleepers == 1 }
        manual.advance(by: 5)
        let account = try await second.value.get()
        #expect(account.account.claims.subject == "user-7")
    }

    @Test func aTaskCancelledBeforeTheWaitSendsNothing() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.success()])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await outcome { () async throws(WebSignInError) in try await state.waitForCompletion() }
        }
        let error = try await failure { () async throws(WebSignInError) in try await task.value.get() }
        #expect(error.isCancelled)
        #expect(provider.requests(to: "/token").isEmpty)
    }

    @Test func aSecondWaitWhileOneRunsIsRefusedAtOnce() async throws {
        let manual = ManualClock()
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.success()])
        let state = try await client(provider, clock: manual).startDeviceSignIn(WebDeviceSignInParameters())
        let first = Task { await outcome { () async throws(WebSignInError) in try await state.waitForCompletion() } }
        try await requireUntil("the first wait to sleep") { manual.sleepers == 1 }
        let second = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(second.isStateBusy)
        #expect(second.correlationId == state.correlationId)
        #expect(provider.requests(to: "/token").isEmpty)
        manual.advance(by: 5)
        _ = try await first.value.get()
        #expect(provider.requests(to: "/token").count == 1)
    }

    // MARK: The ID token

    @Test func theIDTokenIsCheckedAndABadOneStoresNothing() async throws {
        let provider = ScriptedOpenIDProvider(
            steps: [
                ScriptedOpenIDProvider.success(idTokenClaims: ScriptedOpenIDProvider.deviceClaims(aud: "\"other\""))
            ])
        let client = try client(provider)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.failedIDTokenCheck == .audience)
        #expect(error.correlationId == state.correlationId)
        #expect(try await client.currentAccount() == nil)
        #expect(try await store.data(forKey: Self.storeKey) == nil)
        let again = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(again.isStateAlreadyUsed, "the provider consumed the device code")
    }

    @Test func anAnswerWithoutIDTokenIsRefused() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.success(idTokenClaims: nil)])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await state.waitForCompletion() }
        #expect(error.failedIDTokenCheck == .missing)
    }

    // MARK: Starting

    @Test func theDeviceAuthorizationRequestForm() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.pending])
        let correlationId = UUID()
        var parameters = WebDeviceSignInParameters(
            scopes: ["offline_access", "api.read openid", "offline_access"], audience: "https://api.example.com",
            resource: [URL(string: "https://api.example.com/v1")!, URL(string: "https://files.example.com")!],
            extraParameters: ["tenant_hint": "b c", "a_first": "1"])
        parameters.correlationId = correlationId
        let state = try await client(provider).startDeviceSignIn(parameters)
        #expect(state.correlationId == correlationId)
        let request = try #require(provider.requests(to: "/device").first)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.header("client-request-id") == correlationId.uuidString.lowercased())
        #expect(
            provider.forms(to: "/device") == [
                "client_id=web-app&scope=offline_access%20api.read%20openid"
                    + "&audience=https%3A%2F%2Fapi.example.com"
                    + "&resource=https%3A%2F%2Fapi.example.com%2Fv1&resource=https%3A%2F%2Ffiles.example.com"
                    + "&a_first=1&tenant_hint=b%20c"
            ])
    }

    @Test(arguments: [
        "client_id", "Scope", "GRANT_TYPE", "device_code", "client-request-id", "audience", "resource", "",
    ])
    func extraParametersWithTheProtocolsOwnNamesAreRefusedBeforeAnythingIsSent(name: String) async throws {
        let provider = ScriptedOpenIDProvider(steps: [])
        let client = try client(provider)
        let error = try await failure { () async throws(WebSignInError) in
            try await client.startDeviceSignIn(WebDeviceSignInParameters(extraParameters: [name: "x"]))
        }
        #expect(error.isInvalidParameters)
        #expect(error.correlationId != nil)
        #expect(provider.requests.isEmpty)
    }

    @Test func badScopesAndResourcesAreRefusedBeforeAnythingIsSent() async throws {
        let provider = ScriptedOpenIDProvider(steps: [])
        let client = try client(provider)
        for parameters in [
            WebDeviceSignInParameters(scopes: ["a\"b"]),
            WebDeviceSignInParameters(resource: [URL(string: "https://api.example.com/#x")!]),
        ] {
            let error = try await failure { () async throws(WebSignInError) in
                try await client.startDeviceSignIn(parameters)
            }
            #expect(error.isInvalidParameters, "\(parameters)")
        }
        #expect(provider.requests.isEmpty)
    }

    @Test func aProviderWithoutDeviceEndpointIsUnsupported() async throws {
        let provider = ScriptedOpenIDProvider(deviceEndpoint: false, steps: [])
        let client = try client(provider)
        let error = try await failure { () async throws(WebSignInError) in
            try await client.startDeviceSignIn(WebDeviceSignInParameters())
        }
        #expect(error.isUnsupported)
        #expect(!error.isDiscoveryFailed)
        #expect(error.description.contains("device_authorization_endpoint"))
        #expect(provider.requests(to: "/device").isEmpty)
    }

    @Test func googlesVerificationURLSpellingIsAccepted() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(
                verificationURI: nil, interval: nil,
                extra: "\"verification_url\":\"https://www.google.com/device\""),
            steps: [])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        #expect(state.verificationURI.absoluteString == "https://www.google.com/device")
        #expect(state.verificationURIComplete == nil)
    }

    @Test func numbersAsStringsAreReadAndABadCompleteURIIsLeftOut() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.deviceAnswer(
                expiresIn: "\"900\"", interval: "\"4\"", extra: "\"verification_uri_complete\":\"javascript:alert(1)\""),
            steps: [])
        let state = try await client(provider).startDeviceSignIn(WebDeviceSignInParameters())
        #expect(state.expiresOn == clock.now().addingTimeInterval(900))
        #expect(state.interval == 4)
        #expect(state.verificationURIComplete == nil)
    }

    static let malformed: [(String, HTTPResponse)] = [
        ("no device_code", ScriptedOpenIDProvider.deviceAnswer(deviceCode: nil)),
        ("empty device_code", ScriptedOpenIDProvider.deviceAnswer(deviceCode: "")),
        ("no user_code", ScriptedOpenIDProvider.deviceAnswer(userCode: nil)),
        ("no verification_uri", ScriptedOpenIDProvider.deviceAnswer(verificationURI: nil)),
        ("relative verification_uri", ScriptedOpenIDProvider.deviceAnswer(verificationURI: "/device")),
        ("javascript verification_uri", ScriptedOpenIDProvider.deviceAnswer(verificationURI: "javascript:alert(1)")),
        ("no expires_in", ScriptedOpenIDProvider.deviceAnswer(expiresIn: nil)),
        ("text expires_in", ScriptedOpenIDProvider.deviceAnswer(expiresIn: "\"soon\"")),
        ("fractional expires_in", ScriptedOpenIDProvider.deviceAnswer(expiresIn: "600.5")),
        ("zero expires_in", ScriptedOpenIDProvider.deviceAnswer(expiresIn: "0")),
        ("negative expires_in", ScriptedOpenIDProvider.deviceAnswer(expiresIn: "-1")),
        ("boolean expires_in", ScriptedOpenIDProvider.deviceAnswer(expiresIn: "true")),
        ("text interval", ScriptedOpenIDProvider.deviceAnswer(interval: "\"fast\"")),
        ("negative interval", ScriptedOpenIDProvider.deviceAnswer(interval: "-5")),
        ("not JSON", ScriptedOpenIDProvider.json(200, "<html>device</html>")),
        ("a JSON array", ScriptedOpenIDProvider.json(200, "[]")),
        ("empty", HTTPResponse(statusCode: 200)),
        ("a redirect", HTTPResponse(statusCode: 302, headers: ["Location": "https://evil.example.com"])),
        ("an error without error", ScriptedOpenIDProvider.json(400, "{}")),
    ]

    @Test(arguments: malformed)
    func malformedAnswersAreUnexpected(kind: String, answer: HTTPResponse) async throws {
        let provider = ScriptedOpenIDProvider(deviceAnswer: answer, steps: [])
        let client = try client(provider)
        let error = try await failure { () async throws(WebSignInError) in
            try await client.startDeviceSignIn(WebDeviceSignInParameters())
        }
        #expect(error.isUnexpectedResponse, "\(kind)")
        #expect(!error.description.contains(ScriptedOpenIDProvider.deviceCode), "\(kind)")
    }

    @Test func errorAnswersOfTheDeviceEndpointAreTyped() async throws {
        let provider = ScriptedOpenIDProvider(
            deviceAnswer: ScriptedOpenIDProvider.json(
                403, "{\"error\":\"unauthorized_client\",\"error_description\":\"no device grant\"}"),
            steps: [])
        let client = try client(provider)
        let refused = try await failure { () async throws(WebSignInError) in
            try await client.startDeviceSignIn(WebDeviceSignInParameters())
        }
        #expect(refused.isConfigurationError)
        #expect(refused.serverError == "unauthorized_client")
        #expect(refused.serverErrorDescription == "no device grant")
        #expect(refused.httpStatusCode == 403)
        provider.deviceAnswer.withLock { $0 = HTTPResponse(statusCode: 503) }
        let down = try await failure { () async throws(WebSignInError) in
            try await client.startDeviceSignIn(WebDeviceSignInParameters())
        }
        #expect(down.isServerError)
        #expect(down.httpStatusCode == 503)
    }

    // MARK: Privacy

    @Test func noCodeOrTokenReachesALogOrADescription() async throws {
        let provider = ScriptedOpenIDProvider(
            steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.slowDown, ScriptedOpenIDProvider.success()])
        let client = try client(provider)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: ["offline_access"]))
        let account = try await state.waitForCompletion()
        let denied = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.error("access_denied")])
        let deniedState = try await self.client(denied).startDeviceSignIn(WebDeviceSignInParameters())
        let error = try await failure { () async throws(WebSignInError) in try await deniedState.waitForCompletion() }

        var dumped = ""
        dump(state, to: &dumped)
        let texts =
            logger.records.map(\.description) + [
                state.description, String(describing: state), String(reflecting: state), dumped, account.description,
                error.description, error.debugDescription, deniedState.description,
            ]
        let idToken = account.idToken
        let secrets = [
            ScriptedOpenIDProvider.deviceCode, ScriptedOpenIDProvider.accessToken, ScriptedOpenIDProvider.refreshToken,
            idToken, ScriptedOpenIDProvider.userCode,
        ]
        for text in texts {
            for secret in secrets {
                #expect(!text.contains(secret), "\(text.prefix(200))")
            }
        }
        #expect(logger.records.contains { $0.message == "device sign-in started" })
        #expect(logger.records.contains { $0.message == "device sign-in pending" })
    }
}
