import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth
@testable import NativeAuthEmulator

/// The sessions of the authorization challenge endpoint that outlive a sign-in (OAuth 2.0 for
/// First-Party Applications §5.3.1, §6.1, §6.2): the `auth_session` of a token answer, a later
/// sign-in that continues it, and a refresh answered with a challenge.
@Suite("The authorization challenge endpoint: sessions beyond the code", .hangLimit)
struct AuthorizationChallengeSessionTests {
    let harness = Harness { $0.authorizationChallengeEndpoint = true }

    /// A password sign-in at the endpoint; its token answer.
    func signIn() async throws -> Reply {
        let reply = try await harness.startChallenge([("username", Fixture.ada), ("password", Fixture.adaPassword)])
        return try await harness.redeemChallengeCode(reply["authorization_code"])
    }

    @Test func theTokenAnswerToAFirstPartyCodeCarriesAnAuthSession() async throws {
        let tokens = try await signIn()
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens["auth_session"].count >= 43, "§6.1, with 256 bits as §5.3.1 asks")
        // A browser sign-in's code gets none: only the endpoint's sign-ins go on.
        let native = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(!native.has("auth_session"))
    }

    @Test func aFirstRequestWithItAsksOnlyForACodeAndReplacesIt() async throws {
        let session = try await signIn()["auth_session"]
        let opening = [
            ("response_type", "code"), ("client_id", harness.clientId), ("auth_session", session),
            ("scope", "openid offline_access"), ("code_challenge", WebHarness.challenge),
            ("code_challenge_method", "S256"),
        ]
        let withoutPKCE = try await harness.challenge(Array(opening.prefix(4)))
        #expect(withoutPKCE.error == "invalid_request", "\(withoutPKCE.text)")
        let otherUser = try await harness.challenge(opening + [("username", Fixture.grace)])
        #expect(otherUser.error == "invalid_request", "\(otherUser.text)")
        let asked = try await harness.challenge(opening + [("username", Fixture.ada)])
        #expect(asked.status == 403 && asked.error == "insufficient_authorization", "\(asked.text)")
        #expect(asked.json["otp_required"] as? Bool == true)
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.ada))
        let issued = try await harness.challenge([("auth_session", asked["auth_session"]), ("otp", code)])
        #expect(issued.status == 200, "\(issued.text)")
        let tokens = try await harness.redeemChallengeCode(issued["authorization_code"])
        #expect(tokens.status == 200 && tokens.has("auth_session"), "\(tokens.text)")
        #expect(tokens["auth_session"] != session)
        let replaced = try await harness.challenge(opening)
        #expect(replaced.error == "invalid_session", "the replaced session: \(replaced.text)")
    }

    @Test func aRefreshToldToBeChallengedAnswersAsTheDraftsAppendixB4() async throws {
        let tokens = try await signIn()
        harness.tenant.challengeNextRefresh(of: Fixture.ada)
        let refresh = [
            ("grant_type", "refresh_token"), ("refresh_token", tokens["refresh_token"]),
            ("scope", "openid offline_access"),
        ]
        let challenged = try await harness.postPairs(.token, refresh)
        #expect(challenged.status == 403, "\(challenged.text)")
        #expect(
            challenged.keys.sorted() == ["auth_session", "error", "error_description", "otp_required"],
            "the draft's own answer, no Entra fields: \(challenged.text)")
        #expect(challenged.error == "insufficient_authorization")
        #expect(challenged.response.header("Cache-Control") == "no-store")
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.ada))
        // Once: the refresh token still works.
        #expect(try await harness.postPairs(.token, refresh).status == 200)
        // The client goes on at the endpoint: its first request opens the authorization.
        let session = challenged["auth_session"]
        let noPKCE = try await harness.challenge([("auth_session", session), ("otp", code)])
        #expect(noPKCE.error == "invalid_request", "\(noPKCE.text)")
        let issued = try await harness.challenge([
            ("auth_session", session), ("scope", "openid offline_access"), ("code_challenge", WebHarness.challenge),
            ("code_challenge_method", "S256"), ("otp", code),
        ])
        #expect(issued.status == 200, "\(issued.text)")
        let again = try await harness.redeemChallengeCode(issued["authorization_code"])
        #expect(again.status == 200 && again.has("auth_session"), "\(again.text)")
    }

    @Test func onlyTheRefreshesOfWebSignInsAreChallenged() async throws {
        let native = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        harness.tenant.challengeNextRefresh(of: Fixture.ada)
        let refreshed = try await harness.postPairs(
            .token,
            [
                ("grant_type", "refresh_token"), ("refresh_token", native["refresh_token"]),
                ("scope", Fixture.scopes),
            ])
        #expect(refreshed.status == 200, "the native API's refreshes have no such answer: \(refreshed.text)")
    }
}
