import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// What a refused refresh does: only a dead refresh token signs the user out; an answer that asks
/// for interaction keeps the account; an answer for another account is refused whole; claims
/// requests and challenges reach the server and the app.
@Suite("Account: refresh refusals, claims, account integrity", .hangLimit)
struct RefreshRefusalTests {
    let transport = ScriptedTransport()
    let clock = TestClock()
    let store = InMemoryCredentialStore()

    func makeClient() -> NativeAuthClient {
        var configuration = testConfiguration()
        configuration.clock = clock
        return NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
    }

    func signedIn(_ client: NativeAuthClient, claims: String? = nil) async throws -> UserAccountResult {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .tokens(access: "access-1", refresh: "refresh-1", expiresIn: 3600))
        let result = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "pw", claims: claims))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        return account
    }

    func storedRecord() async throws -> AccountRecord? {
        guard let data = try await store.data(forKey: "nativeauth.account.client-1") else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(AccountRecord.self, from: data)
    }

    // MARK: 7. Only a dead refresh token signs out

    static let dead: [(String, String?, [Int])] = [
        ("invalid_grant", "bad_token", []), ("invalid_grant", nil, [70008]), ("invalid_grant", nil, [700082]),
        ("invalid_grant", nil, [70043]), ("invalid_grant", nil, [50173]), ("invalid_grant", nil, [50132]),
        ("invalid_grant", nil, [50133]), ("invalid_grant", "user_account_deleted", [50034]),
    ]

    @Test(arguments: dead)
    func deadRefreshTokenSignsOut(error: String, suberror: String?, codes: [Int]) async throws {
        let client = makeClient()
        let account = try await signedIn(client)
        clock.advance(by: 4000)
        transport.then("token", .error(error, suberror: suberror, codes: codes))
        do {
            _ = try await account.getAccessToken()
            Issue.record("expected an error")
        } catch {
            #expect(error.isRefreshTokenExpired)
            #expect(!error.isInteractionRequired)
        }
        #expect(try await client.currentAccount() == nil)
        #expect(try await storedRecord() == nil)
    }

    static let interaction: [(String, String?, [Int], String)] = [
        ("invalid_grant", nil, [65001], ""), ("invalid_grant", "consent_required", [65001], ""),
        ("invalid_grant", nil, [50076], ""), ("invalid_grant", nil, [50079], ""), ("invalid_grant", nil, [53003], ""),
        ("invalid_grant", "basic_action", [50097], ""), ("invalid_grant", "additional_action", [53000], ""),
        ("invalid_grant", "message_only", [53003], ""), ("interaction_required", nil, [50076], ""),
        (
            "invalid_grant", nil, [50076],
            "\"claims\":\"{\\\"access_token\\\":{\\\"acrs\\\":{\\\"essential\\\":true,\\\"value\\\":\\\"c1\\\"}}}\""
        ),
        // A code second in the list never signs out.
        ("invalid_grant", nil, [65001, 70008], ""), ("invalid_grant", nil, [], ""),
    ]

    @Test(arguments: interaction)
    func interactionKeepsTheAccount(error: String, suberror: String?, codes: [Int], extra: String) async throws {
        let client = makeClient()
        let account = try await signedIn(client)
        clock.advance(by: 4000)
        transport.then("token", .error(error, suberror: suberror, codes: codes, extra: extra))
        do {
            _ = try await account.getAccessToken(scopes: ["api://orders/write"])
            Issue.record("expected an error")
        } catch {
            #expect(error.isInteractionRequired)
            #expect(!error.isRefreshTokenExpired)
            if !extra.isEmpty { #expect(error.details.claims?.contains("acrs") == true) }
        }
        #expect(try await client.currentAccount() != nil)
        #expect(try await storedRecord()?.refreshToken == "refresh-1")
        // Other scopes keep working with the same refresh token.
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        #expect(try await account.getAccessToken().accessToken == "access-2")
        #expect(formFields(transport.requests.last!).contains("refresh_token=refresh-1"))
    }

    // MARK: 8. Claims requests

    static let claims = "{\"access_token\":{\"acrs\":{\"essential\":true,\"value\":\"c1\"}}}"

    @Test func signInSendsClaims() async throws {
        _ = try await signedIn(makeClient(), claims: Self.claims)
        let fields = formFields(transport.requests.last!)
        #expect(fields.contains("claims=" + Self.claims))
        #expect(fields.contains("grant_type=password"))
        // Not on the steps before the token request.
        #expect(!formFields(transport.requests[0]).contains { $0.hasPrefix("claims=") })
    }

    @Test func invalidClaimsSendNothing() async throws {
        do {
            _ = try await makeClient().signIn(SignInParameters(username: "a@b.c", claims: "not json"))
            Issue.record("expected an error")
        } catch {
            #expect(error.details.kind == .invalidArgument)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func getAccessTokenWithClaimsBypassesTheCacheAndSendsThem() async throws {
        let account = try await signedIn(makeClient())
        transport.then("token", .tokens(access: "access-claims", refresh: "refresh-2"))
        let token = try await account.getAccessToken(claims: Self.claims)
        #expect(token.accessToken == "access-claims")
        let fields = formFields(transport.requests.last!)
        #expect(fields.contains("claims=" + Self.claims))
        #expect(fields.contains("grant_type=refresh_token"))
        // The new token is cached for the scopes as usual.
        #expect(try await account.getAccessToken().accessToken == "access-claims")
        let sent = transport.requests.count
        await #expect(throws: RetrieveAccessTokenError.self) { _ = try await account.getAccessToken(claims: "[1]") }
        #expect(transport.requests.count == sent)
    }

    @Test func signInAfterResetSendsClaims() async throws {
        transport.then("resetpassword/v1.0/start", .token("r1"))
        transport.then("resetpassword/v1.0/challenge", .oob("r2"))
        transport.then("resetpassword/v1.0/continue", .token("r3"))
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"r4\",\"poll_interval\":1}"))
        transport.then(
            "resetpassword/v1.0/poll_completion", .json(200, "{\"status\":\"succeeded\",\"continuation_token\":\"r5\"}")
        )
        guard case .codeRequired(let state, _, _, _) = try await makeClient().resetPassword(.init(username: "a@b.c"))
        else { throw TestFailure("expected code") }
        let after = try await state.submitCode("1").submitPassword("Better-Passw0rd")
        transport.then("token", .tokens())
        _ = try await after.signIn(scopes: [], claims: Self.claims)
        #expect(formFields(transport.requests.last!).contains("claims=" + Self.claims))
    }

    @Test func claimsChallengeFromAResourceIsSurfacedDecoded() async throws {
        let account = try await signedIn(makeClient())
        let encoded = Data(Self.claims.utf8).base64EncodedString()
        let resource = ScriptedTransport()
        resource.then(
            "orders",
            .response(
                HTTPResponse(
                    statusCode: 401,
                    headers: [
                        "WWW-Authenticate":
                            "Bearer realm=\"\", authorization_uri=\"https://login.example/authorize\", error=\"insufficient_claims\", claims=\"\(encoded)\""
                    ])))
        let request = HTTPRequest(method: "GET", url: URL(string: "https://api.example/orders")!)
        do {
            _ = try await account.send(request, using: resource)
            Issue.record("expected an error")
        } catch {
            #expect(error.isInteractionRequired)
            #expect(error.claims == Self.claims)
        }
        // The account is untouched.
        #expect(try await storedRecord()?.refreshToken == "refresh-1")
    }

    @Test func claimsChallengeParsing() {
        let encoded = Data(Self.claims.utf8).base64EncodedString()
        #expect(
            UserAccountResult.claimsChallenge("Bearer error=\"insufficient_claims\", claims=\"\(encoded)\"")
                == Self.claims)
        #expect(UserAccountResult.claimsChallenge("Bearer error=\"invalid_token\", claims=\"\(encoded)\"") == nil)
        #expect(UserAccountResult.claimsChallenge("Bearer error=\"insufficient_claims\"") == nil)
        #expect(UserAccountResult.claimsChallenge("Bearer error=\"insufficient_claims\", claims=\"%%%\"") == nil)
        #expect(UserAccountResult.claimsChallenge(nil) == nil)
    }

    // MARK: 10. A refresh never changes whose account it is

    static let foreign: [(String, String)] = [
        ("another oid", TestTokens.idToken(oid: "00000000-0000-0000-0000-0000000000b2")),
        ("not a JWT", "garbage"),
        ("bad base64url", "eyJhbGciOiJub25lIn0.@@@.x"),
        ("payload not JSON", "eyJhbGciOiJub25lIn0.bm90IGpzb24."),
    ]

    @Test(arguments: foreign)
    func refreshForAnotherAccountIsRefused(what: String, idToken: String) async throws {
        let client = makeClient()
        let account = try await signedIn(client)
        let before = try #require(try await storedRecord())
        clock.advance(by: 4000)
        transport.then("token", .tokens(access: "access-x", refresh: "refresh-x", idToken: idToken))
        do {
            _ = try await account.getAccessToken()
            Issue.record("expected an error for \(what)")
        } catch {
            #expect(error.isAccountMismatch, "\(what)")
        }
        let after = try #require(try await storedRecord())
        #expect(after == before, "\(what): nothing stored")
        #expect(try await client.currentAccount()?.account.identifier == account.account.identifier)
    }

    @Test func changedSubjectIsRefused() async throws {
        let account = try await signedIn(makeClient())
        clock.advance(by: 4000)
        let oid = "00000000-0000-0000-0000-0000000000a1"
        // Same oid and tid (so the same account identifier), another sub.
        let before = try #require(try await storedRecord())
        let header = Base64URL.encode(Data("{\"alg\":\"none\"}".utf8))
        let payload = Base64URL.encode(Data("{\"sub\":\"someone-else\",\"oid\":\"\(oid)\",\"tid\":\"tenant-1\"}".utf8))
        transport.then("token", .tokens(access: "access-x", idToken: header + "." + payload + "."))
        do {
            _ = try await account.getAccessToken()
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isAccountMismatch)
        }
        #expect(try await storedRecord() == before)
    }

    // MARK: 9. Not connected is retried like the other "never left" errors

    @Test func notConnectedIsRetriedOnce() async throws {
        transport.then("initiate", .failure(.notConnectedToInternet))
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        guard case .passwordRequired = try await makeClient().signIn(SignInParameters(username: "a@b.c")) else {
            throw TestFailure("expected password")
        }
        #expect(transport.requests.count == 3)
    }
}
