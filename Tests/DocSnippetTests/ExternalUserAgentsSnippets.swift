// The samples of Docs/ExternalUserAgents.md, and the tests that run them.

import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The guide's loopback sample, compiled only: run, it would open the system browser and wait for
/// a person to sign in.
func loopbackSample(authorizationURL: URL) async throws -> URL {
    // The formatter leaves this alone: the sample's comments stay aligned.
    // swift-format-ignore
    do {
        // snippet: agents-loopback
        let agent = LoopbackUserAgent()                 // path "/callback", 5-minute timeout
        let redirectURI = try agent.prepare()           // http://127.0.0.1:53124/callback
        // build the authorization URL with redirectURI
        let callback = try await agent.authorize(url: authorizationURL, redirectURI: redirectURI)
        // snippet: end
        return callback
    }
}

@Suite(.hangLimit)
struct ExternalUserAgentsSnippetTests {
    @Test func theOpenerShowsTheURLAndTheCallbackArrives() async throws {
        // snippet: agents-loopback-opener
        let agent = LoopbackUserAgent { url in
            FileHandle.standardError.write(Data("Open this page to sign in: \(url)\n".utf8))
        }
        // snippet: end
        let redirectURI = try agent.prepare()
        async let callback = agent.authorize(
            url: URL(string: "https://login.example.com/authorize?client_id=my-app")!, redirectURI: redirectURI)
        // The provider sends the browser back to the loopback address.
        var components = try #require(URLComponents(url: redirectURI, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "code", value: "abc"), URLQueryItem(name: "state", value: "xyz")]
        let (_, response) = try await URLSession.shared.data(from: try #require(components.url))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try await callback.query?.contains("code=abc") == true)
    }
}
