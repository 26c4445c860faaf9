import Foundation
import Testing

@testable import NativeAuth

@Suite("Web sign-in errors: questions and privacy")
struct WebSignInErrorTests {
    @Test func questionsFollowTheCode() {
        #expect(WebSignInError.cancelled().isCancelled)
        #expect(WebSignInError.invalidParameters("x").isInvalidParameters)
        let token = WebSignInError.invalidIDToken(.nonce)
        #expect(token.isInvalidIDToken && token.failedIDTokenCheck == .nonce)
        #expect(WebSignInError(.network).failedIDTokenCheck == nil)
        #expect(WebSignInError(.network).isNetworkError && !WebSignInError(.network).isDiscoveryFailed)
        let discovery = WebSignInError(.discoveryFailed(.status(404)), httpStatusCode: 404)
        #expect(discovery.isDiscoveryFailed && !discovery.isNetworkError)
        #expect("\(discovery)".contains("404"))
    }

    @Test func descriptionsHoldNoSecret() throws {
        let random = SeededWebRandom(seed: 11)
        let request = try AuthorizationRequest(
            metadata: testMetadata(), clientId: "c", redirectURI: url("http://127.0.0.1:8765/callback"),
            parameters: WebSignInParameters(), random: random)
        let secrets = [request.state.reveal, request.nonce.reveal, request.pkce.verifier.reveal, "the-code"]
        var errors: [WebSignInError] = []
        for callback in [
            "http://127.0.0.1:8765/callback?code=the-code&state=wrong",
            "http://127.0.0.1:8765/callback?state=\(request.state.reveal)",
            "http://127.0.0.1:8765/callback?code=the-code&state=\(request.state.reveal)&iss=x",
            "http://127.0.0.1:8765/callback?error=access_denied&error_description=d&state=\(request.state.reveal)",
        ] {
            do {
                _ = try request.callback(from: url(callback))
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 4)
        for error in errors {
            let texts = [
                error.description, error.debugDescription, error.errorDescription ?? "", String(reflecting: error),
            ]
            for text in texts {
                for secret in secrets { #expect(!text.contains(secret), "\(text)") }
            }
        }
    }
}
