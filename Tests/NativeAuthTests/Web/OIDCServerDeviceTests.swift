import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// Approves device codes on the test server the way a user's phone would, without a browser:
/// alice logs in through the server's API (session cookie, consent), then opens the
/// verification page `{issuer}/device?code=USER_CODE&g_continue` with that cookie. The server
/// answers with a 302 to its login page with `prompt=deviceComplete` once the code is approved.
struct DeviceApprover {
    let login: OIDCTestLogin

    func approve(userCode: String) async throws {
        let cookie = try await login.sessionCookie()
        var page = URLComponents(
            url: login.issuer.appendingPathComponent("device"), resolvingAgainstBaseURL: false)
        page?.queryItems = [URLQueryItem(name: "code", value: userCode), URLQueryItem(name: "g_continue", value: "")]
        let url = try #require(page?.url)
        let response = try await login.transport.send(HTTPRequest(method: "GET", url: url, headers: ["Cookie": cookie]))
        #expect(response.statusCode == 302)
        let location = response.header("Location") ?? ""
        #expect(location.contains("prompt=deviceComplete"), "the verification page approved the code: \(location)")
    }
}

/// A transport that records every answer and runs `onFirstPending` (once) when the token
/// endpoint first answers `authorization_pending`, before that answer reaches the client: the
/// user approves while the device is polling.
final class PendingHookTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    let onFirstPending: Locked<(@Sendable () async -> Void)?>
    private let recorded = Locked<[(path: String, response: HTTPResponse)]>([])

    init(_ inner: any HTTPTransport, onFirstPending: (@Sendable () async -> Void)? = nil) {
        self.inner = inner
        self.onFirstPending = Locked(onFirstPending)
    }

    /// The answers of the endpoint whose path ends with `suffix`, in order.
    func answers(_ suffix: String) -> [HTTPResponse] {
        recorded.current.filter { $0.path.hasSuffix(suffix) }.map(\.response)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        recorded.withLock { $0.append((request.url.path, response)) }
        if request.url.path.hasSuffix("/token"),
            String(decoding: response.body, as: UTF8.self).contains("authorization_pending"),
            let hook = onFirstPending.withLock({ hook in
                defer { hook = nil }
                return hook
            })
        {
            await hook()
        }
        return response
    }
}

/// Waits on `state` with the system clock, cancelling the wait after `bound`.
func waitForDeviceSignIn(_ state: DeviceSignInState, bound: Duration = TestBounds.wait) async
    -> Result<UserAccountResult, WebSignInError>
{
    let waiter = Task { await outcome { () async throws(WebSignInError) in try await state.waitForCompletion() } }
    let watchdog = Task {
        try? await Task.sleep(for: bound)
        waiter.cancel()
    }
    defer { watchdog.cancel() }
    return await waiter.value
}

/// The device authorization grant end to end against a real provider: the device authorization
/// request, polling with the server's 1 s interval through `authorization_pending`, approval on
/// the server's verification page, the RS256 ID token verified against its JWKS, and the account
/// stored and refreshed. glewlwyd's verification page has no "decline" button; it answers a
/// device code it no longer knows (such as one already redeemed) with `access_denied`.
@Suite(
    "Device code sign-in against a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerDeviceTests {
    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))

    func deviceClient(_ transport: any HTTPTransport, store: InMemoryCredentialStore = InMemoryCredentialStore())
        throws -> WebAuthClient
    {
        try WebAuthClient(
            issuer: login.issuer, clientId: OIDCTestLogin.clientId, redirectURI: OIDCTestLogin.redirectURI,
            transport: transport, credentialStore: store)
    }

    @Test func deviceCodeApprovedWhilePollingSignsInWithAVerifiedIDToken() async throws {
        let userCode = Locked<String?>(nil)
        let approved = Locked(false)
        let approver = DeviceApprover(login: login)
        let transport = PendingHookTransport(URLSessionTransport(timeout: TestBounds.requestDeadline))
        transport.onFirstPending.withLock {
            $0 = {
                guard let code = userCode.current else { return }
                do {
                    try await approver.approve(userCode: code)
                    approved.withLock { $0 = true }
                } catch {
                    Issue.record("approving the device code failed: \(error)")
                }
            }
        }
        let store = InMemoryCredentialStore()
        let client = try deviceClient(transport, store: store)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: OIDCTestLogin.scopes))
        userCode.withLock { $0 = state.userCode }
        #expect(!state.userCode.isEmpty)
        #expect(state.verificationURI.absoluteString == login.issuer.absoluteString + "/device")
        #expect(state.verificationURIComplete?.absoluteString.contains(state.userCode) == true)
        #expect(state.interval == 1, "the test server asks for a 1 s interval")

        let account = try await waitForDeviceSignIn(state).get()
        #expect(approved.current)
        let polls = transport.answers("/token")
        #expect(polls.count >= 2)
        #expect(String(decoding: polls[0].body, as: UTF8.self).contains("authorization_pending"))
        #expect(polls.last?.statusCode == 200)

        // The ID token is the server's, RS256-signed; the sign-in verified it against the JWKS.
        let header = try #require(account.idToken.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) })
        let fields = try #require(try JSONValue.parse(header).objectValue)
        #expect(fields["alg"]?.stringValue == "RS256")
        let claims = try #require(JWT.payload(of: account.idToken))
        #expect(claims["iss"]?.stringValue == login.issuer.absoluteString)
        #expect(claims["nonce"] == nil, "a device code sign-in has no nonce")
        #expect(account.account.claims.subject?.isEmpty == false)

        // Stored and usable: an access token, a refresh with the stored refresh token, a restore.
        let first = try await account.getAccessToken()
        let refreshed = try await account.getAccessToken(forceRefresh: true)
        #expect(refreshed.accessToken != first.accessToken)
        let restored = try #require(
            try await deviceClient(URLSessionTransport(timeout: TestBounds.requestDeadline), store: store)
                .currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
    }

    @Test func deviceCodeRedeemedTwiceIsAccessDenied() async throws {
        let approver = DeviceApprover(login: login)
        let transport = PendingHookTransport(URLSessionTransport(timeout: TestBounds.requestDeadline))
        let client = try deviceClient(transport)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: OIDCTestLogin.scopes))
        try await approver.approve(userCode: state.userCode)
        _ = try await waitForDeviceSignIn(state).get()

        // The same device authorization answer again, as a second state: its code was redeemed.
        let raw = try #require(transport.answers("/device_authorization").first)
        let replay = DeviceSignInState(
            answer: try DeviceAuthorizationAnswer(raw, correlationId: nil), provider: client.provider,
            accounts: client.accounts, metadata: try await client.provider.discovery.metadata(),
            scopes: OIDCTestLogin.scopes, correlationId: UUID())
        switch await waitForDeviceSignIn(replay) {
        case .success: Issue.record("a redeemed device code signed in again")
        case .failure(let error):
            #expect(error.isAccessDenied)
            #expect(error.serverError == "access_denied")
            #expect(error.httpStatusCode == 400)
        }
    }

    @Test func deviceCodeUnapprovedStaysPendingUntilTheClientStopsAtItsExpiry() async throws {
        let transport = PendingHookTransport(URLSessionTransport(timeout: TestBounds.requestDeadline))
        let client = try deviceClient(transport)
        // The server's codes live 600 s; this state takes the server's answer with 3 s instead.
        _ = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: OIDCTestLogin.scopes))
        let raw = try #require(transport.answers("/device_authorization").first)
        var fields = try #require(try JSONSerialization.jsonObject(with: raw.body) as? [String: Any])
        #expect(fields["expires_in"] as? Int == 600)
        fields["expires_in"] = 3
        var short = raw
        short.body = try JSONSerialization.data(withJSONObject: fields)
        let state = DeviceSignInState(
            answer: try DeviceAuthorizationAnswer(short, correlationId: nil), provider: client.provider,
            accounts: client.accounts, metadata: try await client.provider.discovery.metadata(),
            scopes: OIDCTestLogin.scopes, correlationId: UUID())
        switch await waitForDeviceSignIn(state) {
        case .success: Issue.record("an unapproved code signed in")
        case .failure(let error):
            #expect(error.isExpired)
            #expect(error.serverError == nil, "the client stopped before the server's expiry")
        }
        let polls = transport.answers("/token")
        #expect(!polls.isEmpty)
        #expect(polls.allSatisfy { String(decoding: $0.body, as: UTF8.self).contains("authorization_pending") })
    }
}
