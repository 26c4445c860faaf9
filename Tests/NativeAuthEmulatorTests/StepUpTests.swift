import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth
@testable import NativeAuthEmulator

/// Step-up at the tenant (RFC 9470): the `auth_time` and `acr` a sign-in's tokens carry and keep,
/// the protected resource's `insufficient_user_authentication` challenge, and the authorization
/// challenge endpoint's `acr_values` and `max_age`. The emulator writes its own JSON; the replies
/// are read here with `JSONSerialization`.
@Suite("The tenant's step-up: acr, auth_time, the resource's challenge", .hangLimit)
struct StepUpTests {
    let harness = Harness { $0.authorizationChallengeEndpoint = true }
    static let single = EmulatedTenant.singleFactorACR
    static let multi = EmulatedTenant.multiFactorACR

    /// A first-party sign-in of `username` with `password` (and the code asked for, if any),
    /// sending `extra` on the first request; its token answer.
    func signIn(_ username: String, _ password: String?, codeTo address: String? = nil, extra: [(String, String)] = [])
        async throws -> Reply
    {
        var first = [("username", username)] + extra
        if let password { first.append(("password", password)) }
        var reply = try await harness.startChallenge(first)
        if let address {
            #expect(reply.error == "insufficient_authorization", "\(reply.text)")
            let code = try #require(harness.tenant.lastCode(sentTo: address))
            reply = try await harness.challenge([("auth_session", reply["auth_session"]), ("otp", code)])
        }
        #expect(reply.status == 200, "\(reply.text)")
        return try await harness.redeemChallengeCode(reply["authorization_code"])
    }

    func authentication(of tokens: Reply) throws -> (accessACR: String?, accessTime: Int?, idACR: String?, idTime: Int?)
    {
        let access = try claims(tokens["access_token"])
        let parts = tokens["id_token"].split(separator: ".", omittingEmptySubsequences: false)
        let id = try segment(try #require(parts.dropFirst().first))
        return (
            access["acr"] as? String, (access["auth_time"] as? NSNumber)?.intValue, id["acr"] as? String,
            (id["auth_time"] as? NSNumber)?.intValue
        )
    }

    var now: Int { Int(harness.clock.now().timeIntervalSince1970) }

    @Test func aSignInsTokensCarryItsAuthenticationAndItsRefreshesKeepIt() async throws {
        let password = try await signIn(Fixture.ada, Fixture.adaPassword)
        let signedInAt = now
        var found = try authentication(of: password)
        #expect(found.accessACR == Self.single && found.idACR == Self.single)
        #expect(found.accessTime == signedInAt && found.idTime == signedInAt)
        let mfa = try await signIn(Fixture.alan, Fixture.alanPassword, codeTo: "+447700900123")
        #expect(try authentication(of: mfa).accessACR == Self.multi)
        // RFC 9470 §6.1: a refresh keeps the sign-in's auth_time and acr.
        harness.clock.advance(by: 600)
        let refreshed = try await harness.postPairs(
            .token,
            [
                ("grant_type", "refresh_token"), ("refresh_token", password["refresh_token"]),
                ("scope", "openid offline_access"),
            ])
        found = try authentication(of: refreshed)
        #expect(found.accessACR == Self.single && found.accessTime == signedInAt && found.idTime == signedInAt)
        // The native API's tokens carry neither.
        let native = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(try claims(native["access_token"])["auth_time"] == nil)
    }

    @Test func theResourceAsksForAStepUpAsRFC9470Says() async throws {
        let tokens = try await signIn(Fixture.ada, Fixture.adaPassword)
        let token = tokens["access_token"]
        #expect(try await harness.me(token).status == 200, "no requirement yet")
        harness.tenant.requireStepUp(acrValues: [Self.multi, "urn:other"], maxAge: 300)
        let refused = try await harness.me(token)
        #expect(refused.status == 401 && refused.error == "insufficient_user_authentication")
        let header = try #require(refused.response.header("WWW-Authenticate"))
        #expect(
            header
                == "Bearer error=\"insufficient_user_authentication\", error_description=\"A different authentication level is required\", acr_values=\"\(Self.multi) urn:other\", max_age=\"300\""
        )
        // Read by the SDK's own parser, the challenge is what was asked.
        #expect(
            StepUpChallenge(wwwAuthenticate: header)
                == StepUpChallenge(
                    acrValues: [Self.multi, "urn:other"], maxAge: 300,
                    message: "A different authentication level is required"))
        // The level met, the age not: the other description.
        harness.tenant.requireStepUp(acrValues: [Self.single], maxAge: 300)
        #expect(try await harness.me(token).status == 200)
        harness.clock.advance(by: 301)
        let stale = try await harness.me(token)
        #expect(stale.status == 401 && stale.response.header("WWW-Authenticate")?.contains("More recent") == true)
        harness.tenant.requireStepUp()
        #expect(try await harness.me(token).status == 200, "the requirement lifted")
        // A token of the native API carries no authentication: refused while a requirement is set.
        harness.tenant.requireStepUp(maxAge: 86_400)
        let native = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(try await harness.me(native["access_token"]).error == "insufficient_user_authentication")
    }

    @Test func acrValuesAskForASecondFactorAndTheCodeEarnsIt() async throws {
        // Ada has no MFA method: asked for two factors, she gets a code at her email address.
        let asked = try await signIn(
            Fixture.ada, Fixture.adaPassword, codeTo: Fixture.ada,
            extra: [("acr_values", "\(Self.multi) \(Self.single)")])
        #expect(try authentication(of: asked).idACR == Self.multi)
        // Asked for one factor first, the password alone does.
        let single = try await signIn(
            Fixture.ada, Fixture.adaPassword, extra: [("acr_values", "\(Self.single) \(Self.multi)")])
        #expect(try authentication(of: single).idACR == Self.single)
        // Two factors meet a request for one: the acr is the one asked for.
        let alan = try await signIn(
            Fixture.alan, Fixture.alanPassword, codeTo: "+447700900123", extra: [("acr_values", Self.single)])
        #expect(try authentication(of: alan).idACR == Self.single)
        // Values the tenant does not know are a preference it cannot meet: the sign-in is as usual.
        let unknown = try await signIn(Fixture.ada, Fixture.adaPassword, extra: [("acr_values", "urn:example:gold")])
        #expect(try authentication(of: unknown).idACR == Self.single)
        for bad in ["-1", "five", "1.5", "", "9999999999"] {
            let refused = try await harness.startChallenge(
                [("username", Fixture.ada), ("password", Fixture.adaPassword), ("max_age", bad)])
            #expect(refused.error == "invalid_request", "max_age=\(bad): \(refused.text)")
        }
    }

    /// The first request of a sign-in that continues `session`, with `extra`.
    func continuing(_ session: String, _ extra: [(String, String)]) async throws -> Reply {
        try await harness.startChallenge([("auth_session", session), ("username", Fixture.alan)] + extra)
    }

    @Test func aContinuedSessionIsRestoredWhenItMeetsTheStepUpAndAskedForACodeWhenNot() async throws {
        let signedIn = try await signIn(Fixture.alan, Fixture.alanPassword, codeTo: "+447700900123")
        let signedInAt = now
        harness.clock.advance(by: 120)
        // Met: restored at once, with the session's own authentication.
        let restored = try await continuing(signedIn["auth_session"], [("acr_values", Self.multi), ("max_age", "300")])
        #expect(restored.status == 200, "\(restored.text)")
        let again = try await harness.redeemChallengeCode(restored["authorization_code"])
        #expect(try authentication(of: again).idTime == signedInAt)
        // Too old for max_age: a code, and a fresh authentication.
        harness.clock.advance(by: 600)
        let asked = try await continuing(again["auth_session"], [("max_age", "300")])
        #expect(asked.error == "insufficient_authorization", "\(asked.text)")
        let code = try #require(harness.tenant.lastCode(sentTo: "+447700900123"))
        let issued = try await harness.challenge([("auth_session", asked["auth_session"]), ("otp", code)])
        let fresh = try await harness.redeemChallengeCode(issued["authorization_code"])
        #expect(try authentication(of: fresh).idTime == now)
        #expect(try authentication(of: fresh).idACR == Self.multi)
        // Told to ignore the next max_age, the tenant restores a session too old for it, once.
        harness.clock.advance(by: 3_600)
        harness.tenant.ignoreNextMaxAge()
        let ignored = try await continuing(fresh["auth_session"], [("max_age", "5")])
        #expect(ignored.status == 200, "\(ignored.text)")
        let stale = try await harness.redeemChallengeCode(ignored["authorization_code"])
        #expect(try authentication(of: stale).idTime == now - 3_600)
        let honoured = try await continuing(stale["auth_session"], [("max_age", "5")])
        #expect(honoured.error == "insufficient_authorization", "once only: \(honoured.text)")
    }

    @Test func aSnapshotKeepsARefreshTokensAuthentication() async throws {
        let tokens = try await signIn(Fixture.ada, Fixture.adaPassword)
        let signedInAt = now
        let snapshot = harness.tenant.snapshot()
        let text = String(decoding: snapshot, as: UTF8.self)
        #expect(text.contains("\"acr\":\"\(Self.single)\"") && text.contains("\"authTime\":\(signedInAt)"))
        let restored = EmulatedTenant(clock: harness.clock)
        try restored.restore(from: snapshot)
        restored.configure { $0.authorizationChallengeEndpoint = true }
        let request = HTTPRequest(
            method: "POST", url: restored.url(for: .token),
            headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Data(
                formEncode([
                    ("client_id", restored.clientId), ("grant_type", "refresh_token"),
                    ("refresh_token", tokens["refresh_token"]), ("scope", "openid offline_access"),
                ]).utf8))
        let refreshed = try Reply(try await restored.send(request))
        #expect(try authentication(of: refreshed).accessTime == signedInAt)
        // Both or neither.
        let broken = text.replacingOccurrences(of: "\"acr\":\"\(Self.single)\"", with: "\"acr\":null")
        #expect(broken != text)
        #expect(throws: EmulatorSnapshotError.self) { try restored.restore(from: Data(broken.utf8)) }
    }
}
