import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Native Auth V2 over real loopback HTTP: relative hrefs resolve on the server's origin.
@Suite("Native Auth V2: over HTTP", .hangLimit)
struct V2ServerTests {
    @Test("an MFA sign-in over HTTP: authorize-challenge, the journey's links, resume, the code grant")
    func mfaOverHTTP() async throws {
        let served = try ServedTenant()
        let base = served.server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let authority = served.server.authority.absoluteString

        func form(_ url: String, _ pairs: [(String, String)]) async throws -> Reply {
            let request = HTTPRequest(
                method: "POST", url: try #require(URL(string: url)),
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(formEncode(pairs).utf8))
            return try await Reply(served.transport.send(request))
        }
        func follow(_ href: String, _ fields: [String: String]) async throws -> Reply {
            let request = HTTPRequest(
                method: "POST", url: try #require(URL(string: base + href)),
                headers: ["Content-Type": "application/json", "Accept": "application/json"],
                body: try JSONSerialization.data(withJSONObject: fields))
            return try await Reply(served.transport.send(request))
        }

        let clientId = served.tenant.clientId
        let started = try await form(authority + "/oauth2/v2.0/authorize-challenge", [("client_id", clientId)])
        #expect(started.status == 401 && started.error == "InsufficientAuthorization", "\(started.text)")
        let start = try await follow(
            started["sign_in"], ["username": Fixture.alan, "continuationToken": started["continuation_token"]])
        let first = try await follow(
            start.link("verify"), ["continuationToken": start["continuationToken"], "password": Fixture.alanPassword])
        let email = try #require(first.methods.first { $0["type"] as? String == "email" })
        let challenge = try await follow(email.link("challenge"), ["continuationToken": first["continuationToken"]])
        let code = try #require(served.tenant.lastCode(sentTo: "alan.backup@example.org"))
        let done = try await follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
        #expect(done["state"] == "continue", "\(done.text)")
        // The clients post to the fixed path; the `continue` href is the same endpoint.
        let resumed = try await form(base + done.link("continue"), [("continuation_token", done["continuationToken"])])
        #expect(resumed.status == 200, "\(resumed.text)")
        let tokens = try await form(
            authority + "/oauth2/v2.0/token",
            [
                ("client_id", clientId), ("grant_type", "authorization_code"), ("code", resumed["code"]),
                ("client_info", "true"), ("scope", Fixture.scopes),
            ])
        #expect(tokens.status == 200 && !tokens["access_token"].isEmpty, "\(tokens.text)")
        await served.server.stop()
    }

    @Test("the SDK over HTTP: password, then an SMS second factor with a resend, behind V1's states")
    func sdkMFAWithResendOverHTTP() async throws {
        let served = try ServedTenant()
        defer { Task { await served.server.stop() } }
        let client = try served.client(protocol: .v2)
        let start = try await client.signIn(SignInParameters(username: Fixture.alan, password: Fixture.alanPassword))
        guard case .awaitingMFA(let awaiting, let methods) = start else { throw TestFailure("expected awaitingMFA") }
        #expect(methods.map(\.channelTargetType) == [.sms, .email])
        let sms = try await awaiting.requestChallenge(authMethod: methods[0])
        let resent = try await sms.resendCode()
        let code = try #require(served.tenant.lastCode(sentTo: "+447700900123"))
        guard case .completed(let account) = try await resent.submitChallenge(code) else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.username == Fixture.alan)
        // authorize-challenge, start, password, sms challenge, resend, verify, resume, token.
        #expect(served.tenant.receivedRequests.count == 8)
    }

    @Test("the SDK over HTTP on V2: a chosen first factor, a method registered, a browser-only user in the browser")
    func sdkChoiceRegistrationAndBrowserOverHTTP() async throws {
        let served = try ServedTenant { $0.nativeAuthV2FirstFactorChoice = true }
        defer { Task { await served.server.stop() } }
        let client = try served.client(protocol: .v2)

        // The first factor, chosen: an emailed code instead of the password.
        var parameters = SignInParameters(username: Fixture.ada)
        parameters.selectsAuthMethod = true
        guard case .authMethodSelectionRequired(let choice, let methods) = try await client.signIn(parameters) else {
            throw TestFailure("expected authMethodSelectionRequired")
        }
        guard case .codeRequired(let code, _, .email, _) = try await choice.selectAuthMethod(methods[1]) else {
            throw TestFailure("expected codeRequired")
        }
        guard case .completed = try await code.submitCode(try #require(served.tenant.lastCode(sentTo: Fixture.ada)))
        else { throw TestFailure("expected completed") }

        // A method registered first (JIT), then signed in.
        let linus = try await client.signIn(SignInParameters(username: Fixture.linus, password: Fixture.linusPassword))
        guard case .strongAuthRegistrationRequired(let registration, let kinds) = linus else {
            throw TestFailure("expected strongAuthRegistrationRequired")
        }
        guard
            case .verificationRequired(let verification, _, _, _) = try await registration.challengeAuthMethod(
                authMethod: kinds[0], verificationContact: "linus.new@contoso.com")
        else { throw TestFailure("expected verificationRequired") }
        let sent = try #require(served.tenant.lastCode(sentTo: "linus.new@contoso.com"))
        guard case .completed = try await verification.submitChallenge(sent) else {
            throw TestFailure("expected completed")
        }

        // A browser-only user: V2's webFallbackRequired, continued in the headless browser.
        let created = try await served.control(
            "POST", "/users", #"{"username":"bo@contoso.com","password":"Browser-Only-1","requiresBrowser":true}"#)
        #expect(created.status == 201)
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "bo@contoso.com"))
        }
        #expect(error.isBrowserRequired)
        let account = try await error.continueInBrowser(
            redirectURI: try #require(URL(string: "http://127.0.0.1:8765/callback")),
            using: EmulatorServerBrowser(username: nil, password: "Browser-Only-1", transport: served.transport))
        #expect(account.account.username == "bo@contoso.com")
    }
}
