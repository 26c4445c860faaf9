import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

/// A request that gets no answer gives the transport's error as `underlyingError` on the native
/// and the web error types alike, so one pattern reads both.
@Suite("Errors: underlyingError on native and web errors", .hangLimit)
struct UnderlyingErrorTests {
    struct Offline: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw URLError(.notConnectedToInternet) }
    }

    /// The transport's error behind `error`, read the same way whatever the SDK's error type.
    func transportCode(_ error: any Error) -> URLError.Code? {
        switch error {
        case let native as any NativeAuthError: (native.underlyingError as? URLError)?.code
        case let web as WebSignInError: (web.underlyingError as? URLError)?.code
        default: nil
        }
    }

    @Test func aNativeAndAWebNetworkErrorCarryTheTransportsError() async throws {
        let configuration = try NativeAuthConfiguration(
            clientId: "client", authority: URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")!)
        let native = NativeAuthClient(
            configuration: configuration, transport: Offline(), credentialStore: InMemoryCredentialStore())
        let signIn = try await #require(throws: SignInStartError.self) {
            try await native.signIn(SignInParameters(username: "ada@example.com"))
        }
        #expect(signIn.isNetworkError)
        #expect(signIn.underlyingError as? URLError == signIn.details.underlyingError as? URLError)
        #expect(transportCode(signIn) == .notConnectedToInternet)

        let web = try WebAuthClient(
            issuer: URL(string: "https://login.example.com")!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: Offline(),
            credentialStore: InMemoryCredentialStore())
        let discovery = try await #require(throws: WebSignInError.self) {
            try await web.signIn(WebSignInParameters(), using: NeverOpenedAgent())
        }
        #expect(discovery.isNetworkError)
        #expect(transportCode(discovery) == .notConnectedToInternet)
    }

    struct NeverOpenedAgent: ExternalUserAgent {
        func authorize(url: URL, redirectURI: URL) async throws -> URL { throw CancellationError() }
    }
}
