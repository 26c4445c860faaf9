import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// `oauth2/v2.0/authorize-challenge` and the `authorization_code` grant of its codes
/// (Docs/NativeAuthV2Protocol.md, "Step 1", "Step 3", "Step 4").
@Suite("Native Auth V2: authorize-challenge and the code", .hangLimit)
struct V2AuthorizeChallengeTests {
    @Test(
        "start: 401 InsufficientAuthorization with a continuation token and the sign_in, sign_up and reset_password links"
    )
    func start() async throws {
        let harness = Harness()
        let reply = try await harness.startAuthorization()
        #expect(reply.error == "InsufficientAuthorization")
        #expect(!reply["continuation_token"].isEmpty)
        #expect(reply["sign_in"] == "/\(harness.tenant.tenantId)/api/v2.0/signin/start")
        #expect(reply["reset_password"] == "/\(harness.tenant.tenantId)/api/v2.0/resetpassword/start")
        #expect(reply["sign_up"] == "/\(harness.tenant.tenantId)/api/v2.0/signup/start")
        #expect(!reply.has("_links"))
        #expect(reply.has("error_description") && reply.has("trace_id") && reply.has("timestamp"))
        #expect(reply["correlation_id"] == "corr-v2")
        #expect(reply.response.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test("start refuses an unknown or missing client, and a body that is not a form")
    func startRefusals() async throws {
        let harness = Harness()
        expectError(
            try await harness.authorizeChallenge([("client_id", "someone-else")]), "invalid_client", code: 700016)
        expectError(try await harness.authorizeChallenge([]), "invalid_client", code: 700016)
        let json = try await harness.authorizeChallenge(
            [("client_id", harness.clientId)], contentType: "application/json")
        expectError(json, "invalid_request", code: 90100)
        // Resume with another client's id is refused too; without one it is the MSAL clients' request.
        let started = try await harness.startAuthorization()
        let foreign = try await harness.authorizeChallenge(
            [("continuation_token", started["continuation_token"]), ("client_id", "someone-else")])
        expectError(foreign, "invalid_client", code: 700016)
    }

    @Test("resume refuses an unfinished journey's token, an unknown one and an expired one")
    func resumeRefusals() async throws {
        let harness = Harness()
        let started = try await harness.startAuthorization()
        let early = try await harness.authorizeChallenge([("continuation_token", started["continuation_token"])])
        expectError(early, "invalid_request", code: 55000)
        expectError(
            try await harness.authorizeChallenge([("continuation_token", "nope")]), "invalid_request", code: 55000)
        // The same token, still unspent, expires with continuationTokenLifetime.
        harness.clock.advance(by: 601)
        let late = try await harness.authorizeChallenge([("continuation_token", started["continuation_token"])])
        expectError(late, "expired_token", code: 552003)
    }

    @Test("a finished journey resumes once into a code; the code redeems once, with client_info")
    func codeIsSingleUse() async throws {
        let harness = Harness()
        let finished = try await harness.v2CodeSignIn(Fixture.grace)
        #expect(finished["state"] == "continue")
        let code = try await harness.resume(finished["continuationToken"])
        #expect(!code.isEmpty)
        // The continuation token was spent on the code.
        let again = try await harness.authorizeChallenge([("continuation_token", finished["continuationToken"])])
        expectError(again, "invalid_request", code: 55000)

        let tokens = try await harness.redeem(code)
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens["token_type"] == "Bearer" && !tokens["access_token"].isEmpty)
        #expect(!tokens["refresh_token"].isEmpty && !tokens["id_token"].isEmpty && !tokens["client_info"].isEmpty)
        #expect(tokens["scope"] == "api://contoso/read")
        #expect(try claims(tokens["id_token"])["preferred_username"] as? String == Fixture.grace)
        let info = try segment(Substring(tokens["client_info"]))
        #expect(info["utid"] as? String == harness.tenant.tenantId)
        // The tokens work at the protected resource.
        #expect(try await harness.me(tokens["access_token"]).status == 200)

        expectError(try await harness.redeem(code), "invalid_grant", code: 54005)
    }

    @Test("a code expires with authorizationCodeLifetime; an unknown one is invalid_grant")
    func codeExpires() async throws {
        let harness = Harness { $0.authorizationCodeLifetime = 30 }
        let finished = try await harness.v2CodeSignIn(Fixture.grace)
        let code = try await harness.resume(finished["continuationToken"])
        harness.clock.advance(by: 31)
        expectError(try await harness.redeem(code), "invalid_grant", code: 70008)
        expectError(try await harness.redeem("not-a-code"), "invalid_grant", code: 70000)
    }

    @Test("the code grant takes no scope (openid profile offline_access), and refuses another client")
    func codeGrantScopeAndClient() async throws {
        let harness = Harness()
        let code = try await harness.resume(try await harness.v2CodeSignIn(Fixture.grace)["continuationToken"])
        let foreign = try await harness.post(
            .token, ["grant_type": "authorization_code", "code": code], clientId: "someone-else")
        expectError(foreign, "invalid_client", code: 700016)
        let tokens = try await harness.redeem(code, scope: nil)
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(!tokens["id_token"].isEmpty && !tokens["refresh_token"].isEmpty)
        #expect(tokens["scope"] == "")
    }

    @Test("with nativeAuthV2 off every V2 path answers 404; V1 sign-in is unchanged")
    func off() async throws {
        let harness = Harness { $0.nativeAuthV2 = false }
        let start = try await harness.authorizeChallenge([("client_id", harness.clientId)])
        #expect(start.status == 404 && start.error == "not_found")
        let tenantId = harness.tenant.tenantId
        let journey = try await harness.follow("/\(tenantId)/api/v2.0/signin/start", ["username": Fixture.grace])
        #expect(journey.status == 404)
        let method = try await harness.follow("/\(tenantId)/api/v2.0/auth/methods/email/x/verify", ["otp": "1"])
        #expect(method.status == 404)
        #expect(try await harness.signIn(Fixture.ada, password: Fixture.adaPassword).status == 200)
    }

    @Test("V1 and V2 continuation tokens are not interchangeable")
    func tokensDoNotCross() async throws {
        let harness = Harness()
        let initiate = try await harness.post(.initiate, ["username": Fixture.grace, "challenge_type": "oob redirect"])
        let v1Token = initiate["continuation_token"]
        let start = try await harness.startAuthorization()
        let crossed = try await harness.follow(
            start["sign_in"], ["username": Fixture.grace, "continuationToken": v1Token])
        expectHALError(crossed, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
        let v2Token = start["continuation_token"]
        let back = try await harness.post(
            .challenge, ["continuation_token": v2Token, "challenge_type": "oob redirect"])
        expectError(back, "invalid_request", code: 55000)
        let resumed = try await harness.authorizeChallenge([("continuation_token", v1Token)])
        expectError(resumed, "invalid_request", code: 55000)
    }
}
