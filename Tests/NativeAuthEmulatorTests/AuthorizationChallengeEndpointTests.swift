import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth
@testable import NativeAuthEmulator

extension Harness {
    /// POSTs exactly `fields` to the authorization challenge endpoint.
    func challenge(_ fields: [(String, String)]) async throws -> Reply {
        let request = HTTPRequest(
            method: "POST", url: tenant.url(for: .authorizationChallenge),
            headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(formEncode(fields).utf8))
        return try await Reply(tenant.send(request))
    }

    /// The first request of a sign-in, as the draft's §5.1 has it, with `extra` fields after.
    func startChallenge(_ extra: [(String, String)], challenge: String = WebHarness.challenge) async throws -> Reply {
        try await self.challenge(
            [
                ("response_type", "code"), ("client_id", clientId), ("scope", "openid offline_access"),
                ("code_challenge", challenge), ("code_challenge_method", "S256"),
            ] + extra)
    }

    /// Redeems `code` at the token endpoint as the draft's §6 does: no `redirect_uri`.
    func redeemChallengeCode(_ code: String, verifier: String = WebHarness.verifier, extra: [(String, String)] = [])
        async throws -> Reply
    {
        try await postPairs(
            .token,
            [("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier)] + extra)
    }
}

@Suite("The authorization challenge endpoint (OAuth 2.0 for First-Party Applications)", .hangLimit)
struct AuthorizationChallengeEndpointTests {
    let harness = Harness { $0.authorizationChallengeEndpoint = true }

    @Test func offByDefaultAsWithEntra() async throws {
        let off = Harness()
        #expect(!off.tenant.settings.authorizationChallengeEndpoint)
        let document = try Reply(
            try await off.tenant.send(HTTPRequest(method: "GET", url: off.tenant.url(for: .openIDConfiguration))))
        #expect(!document.has("authorization_challenge_endpoint"))
        #expect(try await off.startChallenge([("username", Fixture.ada)]).status == 404)
        let on = try Reply(
            try await harness.tenant.send(
                HTTPRequest(method: "GET", url: harness.tenant.url(for: .openIDConfiguration))))
        #expect(on["authorization_challenge_endpoint"].hasSuffix("/oauth2/v2.0/first-party/authorize-challenge"))
    }

    @Test func aPasswordGetsACodeBoundToThePKCEChallengeAndUsedOnce() async throws {
        let reply = try await harness.startChallenge([("username", Fixture.ada), ("password", Fixture.adaPassword)])
        #expect(reply.status == 200 && reply.keys == ["authorization_code"], "\(reply.text)")
        #expect(reply.response.header("Cache-Control") == "no-store")
        let code = reply["authorization_code"]
        let wrongVerifier = try await harness.redeemChallengeCode(
            code, verifier: String(WebHarness.verifier.reversed()))
        #expect(wrongVerifier.error == "invalid_grant", "\(wrongVerifier.text)")
        let withRedirect = try await harness.redeemChallengeCode(code, extra: [("redirect_uri", WebHarness.redirect)])
        #expect(withRedirect.error == "invalid_grant", "a code of a request without redirect_uri: \(withRedirect.text)")
        let tokens = try await harness.redeemChallengeCode(code)
        #expect(tokens.status == 200 && tokens.has("id_token"), "\(tokens.text)")
        let payload = try segment(tokens["id_token"].split(separator: ".")[1])
        #expect(payload["preferred_username"] as? String == Fixture.ada)
        let again = try await harness.redeemChallengeCode(code)
        #expect(again.error == "invalid_grant", "single use: \(again.text)")
    }

    @Test func aWrongPasswordAndAnUnknownUserGetTheSameAnswer() async throws {
        let wrong = try await harness.startChallenge([("username", Fixture.ada), ("password", "nope")])
        let unknown = try await harness.startChallenge([("username", "who@contoso.com"), ("password", "nope")])
        for reply in [wrong, unknown] {
            #expect(reply.status == 400 && reply.error == "invalid_grant", "\(reply.text)")
        }
        #expect(wrong["error_description"] == unknown["error_description"])
    }

    @Test func theDraftsOneTimeCodeSequence() async throws {
        // Appendix B.3: 403 insufficient_authorization with auth_session and otp_required, then
        // auth_session and otp alone (no client_id: the session names the client).
        let first = try await harness.startChallenge([("username", Fixture.grace)])
        #expect(first.status == 403 && first.error == "insufficient_authorization", "\(first.text)")
        #expect(first.json["otp_required"] as? Bool == true)
        let session = first["auth_session"]
        #expect(session.count >= 43, "256 bits, the draft's §5.3.1")
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let wrong = try await harness.challenge([("auth_session", session), ("otp", "0")])
        #expect(wrong.error == "invalid_grant", "\(wrong.text)")
        let reply = try await harness.challenge([("auth_session", session), ("otp", code)])
        #expect(reply.status == 200 && reply.has("authorization_code"), "\(reply.text)")
        let spent = try await harness.challenge([("auth_session", session), ("otp", code)])
        #expect(spent.error == "invalid_session", "\(spent.text)")
    }

    @Test func aPasswordThenTheSecondFactorOfAnMFAUser() async throws {
        let first = try await harness.startChallenge([("username", Fixture.alan), ("password", Fixture.alanPassword)])
        #expect(first.error == "insufficient_authorization", "\(first.text)")
        let code = try #require(harness.tenant.lastCode(sentTo: "+447700900123"))
        let reply = try await harness.challenge([
            ("response_type", "code"), ("client_id", harness.clientId), ("auth_session", first["auth_session"]),
            ("otp", code),
        ])
        #expect(reply.status == 200, "\(reply.text)")
        let tokens = try await harness.redeemChallengeCode(reply["authorization_code"])
        #expect(tokens.status == 200, "\(tokens.text)")
    }

    @Test func fiveWrongCodesEndTheSession() async throws {
        let session = try await harness.startChallenge([("username", Fixture.grace)])["auth_session"]
        for _ in 1...TenantState.challengeAttempts {
            #expect(try await harness.challenge([("auth_session", session), ("otp", "1")]).error == "invalid_grant")
        }
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        #expect(try await harness.challenge([("auth_session", session), ("otp", code)]).error == "invalid_session")
    }

    @Test func redirectToWebCarriesARequestURIOnlyWhenTheRedirectURIIsKnown() async throws {
        let bo = [("username", "bo@contoso.com"), ("password", "Browser-Only-1")]
        let web = WebHarness(harness: harness)
        let bare = try await harness.startChallenge(bo)
        #expect(bare.status == 403 && bare.error == "redirect_to_web" && !bare.has("request_uri"), "\(bare.text)")
        harness.tenant.configure { $0.redirectURIs = [WebHarness.redirect] }
        let pushed = try await harness.startChallenge(bo)
        #expect(pushed["request_uri"].hasPrefix("urn:ietf:params:oauth:request_uri:"), "\(pushed.text)")
        #expect(pushed.number("expires_in") == 60)
        let page = try await web.get(web.pushedAuthorizeURL(pushed["request_uri"]))
        #expect(page.statusCode == 200, "the sign-in page")
    }

    @Test func theIdentifierFirstProfileAsksForThePasswordThenTheSecondFactor() async throws {
        harness.tenant.configure { $0.authorizationChallengeIdentifierFirst = true }
        let asked = try await harness.startChallenge([("username", Fixture.alan)])
        #expect(asked.status == 403 && asked.error == "insufficient_authorization", "\(asked.text)")
        #expect(asked.json["password_required"] as? Bool == true && !asked.has("otp_required"))
        #expect(harness.tenant.lastCode(sentTo: Fixture.alan) == nil, "nothing is sent before the password")
        let wrong = try await harness.challenge([("auth_session", asked["auth_session"]), ("password", "nope")])
        #expect(wrong.status == 400 && wrong.error == "invalid_grant", "the session is kept: \(wrong.text)")
        let noPassword = try await harness.challenge([("auth_session", asked["auth_session"]), ("otp", "1")])
        #expect(noPassword.error == "invalid_request", "\(noPassword.text)")
        let second = try await harness.challenge([
            ("auth_session", asked["auth_session"]), ("password", Fixture.alanPassword),
        ])
        #expect(second.status == 403 && second.json["otp_required"] as? Bool == true, "\(second.text)")
        #expect(second["auth_session"] != asked["auth_session"], "each answer hands out a new auth_session")
        let retired = try await harness.challenge([
            ("auth_session", asked["auth_session"]), ("password", Fixture.alanPassword),
        ])
        #expect(retired.error == "invalid_session", "\(retired.text)")
        let code = try #require(harness.tenant.outbox.last?.code)
        let done = try await harness.challenge([("auth_session", second["auth_session"]), ("otp", code)])
        #expect(done.status == 200 && done.has("authorization_code"), "\(done.text)")
        let tokens = try await harness.redeemChallengeCode(done["authorization_code"])
        #expect(tokens.status == 200 && tokens.has("id_token"), "\(tokens.text)")
        // A password sent up front is answered as before, and a passwordless user still gets a code.
        let upFront = try await harness.startChallenge([("username", Fixture.ada), ("password", Fixture.adaPassword)])
        #expect(upFront.status == 200, "\(upFront.text)")
        let passwordless = try await harness.startChallenge([("username", Fixture.grace)])
        #expect(passwordless.json["otp_required"] as? Bool == true, "\(passwordless.text)")
    }

    @Test func refusals() async throws {
        let missingPKCE = try await harness.challenge([
            ("response_type", "code"), ("client_id", harness.clientId), ("scope", "openid"), ("username", Fixture.ada),
        ])
        #expect(missingPKCE.error == "invalid_request" && missingPKCE["error_description"].contains("PKCE"))
        let plain = try await harness.startChallenge([("username", Fixture.ada)], challenge: WebHarness.verifier)
        #expect(plain.error == "invalid_request", "\(plain.text)")
        let client = try await harness.challenge([("response_type", "code"), ("client_id", "other")])
        #expect(client.status == 401 && client.error == "invalid_client")
        let type = try await harness.challenge([("response_type", "token"), ("client_id", harness.clientId)])
        #expect(type.error == "unsupported_response_type")
        let twice = try await harness.startChallenge([("username", Fixture.ada), ("username", Fixture.grace)])
        #expect(twice.error == "invalid_request" && twice["error_description"].contains("more than once"))
        let noPassword = try await harness.startChallenge([("username", Fixture.ada)])
        #expect(noPassword.error == "invalid_request", "\(noPassword.text)")
        let unknownSession = try await harness.challenge([("auth_session", "nope"), ("otp", "1")])
        #expect(unknownSession.error == "invalid_session")
    }
}
