import Foundation
import Testing

@testable import NativeAuth

@Suite("Authorization callback parsing")
struct AuthorizationCallbackTests {
    let redirect = url("http://127.0.0.1:8765/callback")
    let issuer = "https://idp.example.com"
    let correlation = UUID()

    func parse(_ callback: String, issRequired: Bool = false) throws(WebSignInError) -> AuthorizationCallback {
        try AuthorizationCallback(
            url: url(callback), redirectURI: redirect, expectedState: Secret("state-1"), expectedIssuer: issuer,
            issuerRequired: issRequired, correlationId: correlation)
    }

    func failure(_ callback: String, issRequired: Bool = false) -> WebSignInError? {
        do {
            _ = try parse(callback, issRequired: issRequired)
            Issue.record("\(callback) was accepted")
            return nil
        } catch {
            #expect(error.correlationId == correlation)
            return error
        }
    }

    @Test func codeAndState() throws {
        let callback = try parse("http://127.0.0.1:8765/callback?state=state-1&session_state=x&code=c%2Bo+de")
        #expect(callback.code.reveal == "c+o de")
        #expect(callback.issuer == nil)
        let withIssuer = try parse(
            "http://127.0.0.1:8765/callback?code=c&state=state-1&iss=https%3A%2F%2Fidp.example.com", issRequired: true)
        #expect(withIssuer.issuer == issuer)
    }

    @Test func stateMismatch() {
        for callback in [
            "http://127.0.0.1:8765/callback?code=c&state=state-2",
            "http://127.0.0.1:8765/callback?code=c&state=state-",
            "http://127.0.0.1:8765/callback?code=c",
            "http://127.0.0.1:8765/callback?error=access_denied",
        ] {
            let error = failure(callback)
            #expect(error?.isStateMismatch == true, "\(callback)")
            #expect(error.map { !"\($0)".contains("state-1") && !"\($0)".contains("code=") } == true)
        }
    }

    @Test func issuerMismatch() {
        let other = failure("http://127.0.0.1:8765/callback?code=c&state=state-1&iss=https%3A%2F%2Fevil.example.com")
        #expect(other?.isIssuerMismatch == true)
        let slash = failure("http://127.0.0.1:8765/callback?code=c&state=state-1&iss=https%3A%2F%2Fidp.example.com%2F")
        #expect(slash?.isIssuerMismatch == true, "RFC 9207 compares the exact string")
        let missing = failure("http://127.0.0.1:8765/callback?code=c&state=state-1", issRequired: true)
        #expect(missing?.isIssuerMismatch == true)
    }

    @Test func errorResponses() {
        let denied = failure(
            "http://127.0.0.1:8765/callback?error=access_denied&error_description=The+user+said+no&error_uri=https%3A%2F%2Fidp%2Fe&state=state-1"
        )
        #expect(denied?.isAccessDenied == true)
        #expect(denied?.isServerError == true)
        #expect(denied?.serverError == "access_denied")
        #expect(denied?.serverErrorDescription == "The user said no")
        #expect(denied?.serverErrorURI == "https://idp/e")
        #expect(denied?.isInteractionRequired == false)
        #expect(denied.map { "\($0)".contains("error=access_denied") } == true)

        for name in ["login_required", "interaction_required", "consent_required", "account_selection_required"] {
            let error = failure("http://127.0.0.1:8765/callback?error=\(name)&state=state-1")
            #expect(error?.isInteractionRequired == true, "\(name)")
            #expect(error?.isAccessDenied == false)
        }
        let other = failure("http://127.0.0.1:8765/callback?error=server_error&state=state-1")
        #expect(other?.isServerError == true)
        #expect(other?.isAccessDenied == false)
        let configuration = failure("http://127.0.0.1:8765/callback?error=unauthorized_client&state=state-1")
        #expect(configuration?.isConfigurationError == true)
    }

    @Test func missingCode() {
        let error = failure("http://127.0.0.1:8765/callback?state=state-1")
        #expect(error?.isInvalidCallback == true)
        #expect(error?.code == .missingCode)
        #expect(failure("http://127.0.0.1:8765/callback?state=state-1&code=")?.code == .missingCode)
    }

    @Test func queryOnly() {
        let fragment = failure("http://127.0.0.1:8765/callback#code=c&state=state-1")
        #expect(fragment?.isInvalidCallback == true)
        #expect(fragment?.note?.contains("fragment") == true)
    }

    @Test func repeatedParametersAndOtherRedirectsAreRefused() {
        #expect(failure("http://127.0.0.1:8765/callback?code=c&code=d&state=state-1")?.isInvalidCallback == true)
        #expect(failure("http://127.0.0.1:8765/callback?code=c&state=state-1&state=state-1")?.isInvalidCallback == true)
        #expect(failure("http://127.0.0.1:8766/callback?code=c&state=state-1")?.isInvalidCallback == true)
        #expect(failure("http://127.0.0.1:8765/other?code=c&state=state-1")?.isInvalidCallback == true)
        #expect(failure("https://127.0.0.1:8765/callback?code=c&state=state-1")?.isInvalidCallback == true)
        #expect(throws: Never.self) { try parse("HTTP://127.0.0.1:8765/callback?code=c&state=state-1") }
    }

    @Test func throughTheRequest() throws {
        let random = SeededWebRandom(seed: 5)
        let request = try AuthorizationRequest(
            metadata: testMetadata(issRequired: true), clientId: "c", redirectURI: redirect,
            parameters: WebSignInParameters(), random: random)
        let state = FormBody.escape(request.state.reveal)
        let callback = try request.callback(
            from: url("http://127.0.0.1:8765/callback?code=abc&state=\(state)&iss=https%3A%2F%2Fidp.example.com"))
        #expect(callback.code.reveal == "abc")
        #expect(throws: WebSignInError.self) {
            try request.callback(from: url("http://127.0.0.1:8765/callback?code=abc&state=\(state)"))
        }
    }
}
