// The samples of Docs/Tokens.md (but one: TokensFetchOrdersSample.swift), and the tests that run
// them against an emulated tenant.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: tokens-cancellation
func tokenOrNil(_ account: UserAccountResult) async -> TokenResult? {
    let fetching = Task { try await account.getAccessToken() }
    // … the screen goes away:
    fetching.cancel()
    return try? await fetching.value  // nil when the wait was cut short
}
// snippet: end

// snippet: tokens-no-token
func token(for account: UserAccountResult) async throws -> TokenResult? {
    do {
        return try await account.getAccessToken()
    } catch {
        if error.isRefreshTokenExpired || error.isNoAccount {
            return nil  // the session is over: the user must sign in again
        }
        if error.isInteractionRequired {
            // The account is kept. Sign the user in again, passing error.details.claims along.
            return nil
        }
        throw error
    }
}
// snippet: end

// snippet: tokens-claims-challenge
func callOrders(
    client: NativeAuthClient, account: UserAccountResult, request: HTTPRequest,
    username: String, password: String
) async throws -> HTTPResponse? {
    do {
        return try await account.send(request, scopes: ["api://contoso/orders.write"])
    } catch {
        // error is an AuthorizedRequestError: send is the only call here that throws.
        guard error.isInteractionRequired, let claims = error.claims else { throw error }
        // Step up: sign in again, asking for the claims the API named.
        let start = try await client.signIn(
            SignInParameters(
                username: username, password: password,
                scopes: ["api://contoso/orders.write"], claims: claims))
        guard case .completed(let steppedUp) = start else { return nil }  // a code, MFA, …
        return try await steppedUp.send(request, scopes: ["api://contoso/orders.write"])
    }
}
// snippet: end

/// A client on an emulated tenant, with ada@example.com signed in.
private func signedInAccount() async throws -> (
    client: NativeAuthClient, tenant: EmulatedTenant, clock: ManualClock, account: UserAccountResult
) {
    let (client, tenant, clock) = try makeClient()
    let start = try await client.signIn(
        SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
    guard case .completed(let account) = start else {
        throw UnexpectedSampleOutcome(description: "\(start)")
    }
    return (client, tenant, clock, account)
}

@Suite(.hangLimit)
struct TokensSnippetTests {
    @Test func readsClaims() async throws {
        let (_, _, _, account) = try await signedInAccount()
        // The formatter leaves this alone: the sample's comments stay aligned.
        // swift-format-ignore
        do {
            // snippet: tokens-claims
            let claims = account.account.claims
            let displayName = claims.name ?? account.account.username
            let isAdmin = claims.roles.contains("Orders.Admin")
            let city = claims.string("city")                       // a claim your user flow adds
            let loyaltyTier = claims["loyalty"]?["tier"]?.intValue // a nested custom claim
            // snippet: end

            #expect(displayName == claims.name ?? "ada@example.com")
            #expect(!isAdmin)
            #expect(city == nil)
            #expect(loyaltyTier == nil)
        }
    }

    @Test func getsAnAccessToken() async throws {
        let (_, _, _, account) = try await signedInAccount()
        // snippet: tokens-get-access-token
        let token = try await account.getAccessToken(scopes: ["api://contoso/orders.read"])
        // snippet: end
        #expect(!token.accessToken.isEmpty)
    }

    @Test func sendsTheTokenWithURLSession() async throws {
        let (_, tenant, _, account) = try await signedInAccount()
        let server = try EmulatorServer(tenant: tenant)
        server.start()
        let data = try await fetchOrders(account: account, url: server.url(for: .resource))
        await server.stop()
        #expect(String(decoding: data, as: UTF8.self).contains("ada@example.com"))
    }

    @Test func setsTheRefreshMargin() throws {
        // snippet: tokens-refresh-margin
        var configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
        configuration.tokenRefreshMargin = 600  // refresh when less than ten minutes are left
        // snippet: end
        #expect(configuration.tokenRefreshMargin == 600)
    }

    @Test func aCancelledWaitGivesNil() async throws {
        let (_, _, clock, account) = try await signedInAccount()
        clock.advance(by: 3600)  // the cached token has expired: a refresh is needed
        let token = await tokenOrNil(account)
        #expect(token == nil || token?.accessToken.isEmpty == false)
    }

    @Test func anEndedSessionGivesNoToken() async throws {
        let (_, tenant, clock, account) = try await signedInAccount()
        #expect(try await token(for: account) != nil)

        tenant.revokeRefreshTokens(for: "ada@example.com")
        clock.advance(by: 3600)
        #expect(try await token(for: account) == nil)
    }

    @Test func stepsUpForAClaimsChallenge() async throws {
        let (client, tenant, _, account) = try await signedInAccount()
        let claims = #"{"access_token":{"acrs":{"essential":true,"value":"c1"}}}"#
        let challenge =
            #"Bearer error="insufficient_claims", claims=""# + Data(claims.utf8).base64EncodedString() + #"""#
        tenant.force(.raw(status: 401, headers: ["WWW-Authenticate": challenge], body: Data()), on: .resource)

        let response = try await callOrders(
            client: client, account: account, request: HTTPRequest(method: "GET", url: tenant.url(for: .resource)),
            username: "ada@example.com", password: "Analytical-Engine-1843")

        #expect(response?.statusCode == 200)
        let signIns = tenant.receivedRequests.filter { $0.url.path.hasSuffix("oauth2/v2.0/initiate") }
        #expect(signIns.count == 2)
    }
}

// snippet: tokens-credentials-delegate
@MainActor
final class TokenScreen: CredentialsDelegate {
    func load(_ account: UserAccountResult) {
        account.getAccessToken(scopes: ["api://contoso/orders.read"], delegate: self)
    }

    func onAccessTokenRetrieveCompleted(result: TokenResult) { /* call the API */  }

    func onAccessTokenRetrieveError(error: RetrieveAccessTokenError) {
        if error.isRefreshTokenExpired { /* show the sign-in screen */  }
    }
}
// snippet: end
