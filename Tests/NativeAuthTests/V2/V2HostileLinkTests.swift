import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A transport in front of the emulator that rewrites one kind of V2 answer: the JSON object of
/// the first answer to a request whose path ends with `suffix` goes through `rewrite`. Every
/// request it forwards is recorded, wherever it was addressed.
final class RewritingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let suffix: String
    let rewrite: @Sendable (inout [String: Any]) -> Void
    private let sent = LockedValue<[HTTPRequest]>([])
    private let done = LockedValue(false)

    init(_ inner: any HTTPTransport, after suffix: String, _ rewrite: @escaping @Sendable (inout [String: Any]) -> Void)
    {
        self.inner = inner
        self.suffix = suffix
        self.rewrite = rewrite
    }

    var requests: [HTTPRequest] { sent.current }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.withLock { $0.append(request) }
        var response = try await inner.send(request)
        guard request.url.path.hasSuffix(suffix), !done.withLock({ $0 }) else { return response }
        guard var object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] else {
            return response
        }
        done.withLock { $0 = true }
        rewrite(&object)
        response.body = (try? JSONSerialization.data(withJSONObject: object)) ?? response.body
        return response
    }
}

/// Links are data, not addresses to trust (Docs/NativeAuthV2Protocol.md, "Following an href"): a hostile
/// answer's link to another host, an `http` link, a missing link or an unknown action ends the
/// flow with a typed error before the password, the code or the continuation token go anywhere.
@Suite("V2: hostile links are refused before anything secret is sent", .hangLimit)
struct V2HostileLinkTests {
    let harness = EmulatorHarness()
    static let password = EmulatorHarness.password

    /// Sets the password method's `verify` href of the `signin/start` answer to `href` (removes
    /// it when `nil`).
    static func verifyHref(_ href: String?) -> @Sendable (inout [String: Any]) -> Void {
        { object in
            var links = object["_links"] as? [String: Any] ?? [:]
            links["verify"] = href.map { ["href": $0] }
            object["_links"] = links
        }
    }

    /// Signs ada in with the password up front through `transport`; the error it ends with.
    func passwordSignIn(through transport: RewritingTransport) async throws -> SignInStartError {
        let client = V2Clients.client(harness, transport: transport)
        return try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "ada@example.com", password: Self.password))
        }
    }

    /// No request `transport` forwarded carried the password, and every one went to the tenant.
    func expectNothingSecretLeft(_ transport: RewritingTransport, sourceLocation: SourceLocation = #_sourceLocation) {
        for request in transport.requests {
            let body = String(decoding: request.body ?? Data(), as: UTF8.self)
            #expect(!body.contains(Self.password), "\(request.url.path)", sourceLocation: sourceLocation)
            #expect(request.url.host == harness.tenant.authority.host, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [
        "https://attacker.example/contoso.onmicrosoft.com/api/v2.0/auth/methods/password/p/verify",
        "http://login.emulator.test/contoso.onmicrosoft.com/api/v2.0/auth/methods/password/p/verify",
        "//attacker.example/api/v2.0/verify", "/contoso.onmicrosoft.com/api/v2.0/../../oauth2/verify",
        "/contoso.onmicrosoft.com/not-an-api/verify", "javascript:alert(1)",
    ])
    func aHostileVerifyLinkIsRefusedBeforeThePassword(href: String) async throws {
        let transport = RewritingTransport(harness.tenant, after: "/signin/start", Self.verifyHref(href))
        let error = try await passwordSignIn(through: transport)
        #expect(error.isUnexpectedResponse, "\(href)")
        #expect(!error.isInvalidCredentials)
        expectNothingSecretLeft(transport)
        #expect(transport.requests.count == 2, "authorize-challenge and signin/start only")
    }

    @Test func aMissingVerifyLinkIsRefused() async throws {
        let transport = RewritingTransport(harness.tenant, after: "/signin/start", Self.verifyHref(nil))
        let error = try await passwordSignIn(through: transport)
        #expect(error.isUnexpectedResponse)
        expectNothingSecretLeft(transport)
    }

    @Test(arguments: ["enroll", "register", "activate", "somethingNew"])
    func anUnknownActionIsRefused(action: String) async throws {
        let transport = RewritingTransport(harness.tenant, after: "/signin/start") { $0["action"] = action }
        let error = try await passwordSignIn(through: transport)
        #expect(error.isUnexpectedResponse)
        expectNothingSecretLeft(transport)
    }

    @Test func aHostileJourneyLinkIsRefusedBeforeTheUsernameAndToken() async throws {
        let transport = RewritingTransport(harness.tenant, after: "/authorize-challenge") {
            $0["sign_in"] = "https://attacker.example/contoso.onmicrosoft.com/api/v2.0/signin/start"
        }
        let error = try await passwordSignIn(through: transport)
        #expect(error.isUnexpectedResponse)
        #expect(transport.requests.count == 1, "only authorize-challenge was sent")
    }

    @Test func aHostileCodeVerifyLinkIsRefusedBeforeTheCode() async throws {
        let transport = RewritingTransport(harness.tenant, after: "/challenge") { object in
            object["_links"] = ["verify": ["href": "https://attacker.example/api/v2.0/verify"]]
        }
        let client = V2Clients.client(harness, transport: transport)
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "grace@example.com"))
        }
        #expect(error.isUnexpectedResponse)
        #expect(transport.requests.allSatisfy { $0.url.host == harness.tenant.authority.host })
        #expect(!transport.requests.contains { $0.url.path.hasSuffix("/verify") })
    }

    @Test func aHostileSecondFactorLinkIsRefusedBeforeTheToken() async throws {
        let transport = RewritingTransport(harness.tenant, after: "/verify") { object in
            guard var methods = (object["_embedded"] as? [String: Any])?["methods"] as? [[String: Any]] else { return }
            methods[0]["_links"] = ["challenge": ["href": "http://attacker.example/api/v2.0/challenge"]]
            object["_embedded"] = ["methods": methods]
        }
        let client = V2Clients.client(harness, transport: transport)
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "alan@example.com", password: Self.password))
        }
        #expect(error.isUnexpectedResponse)
        #expect(transport.requests.allSatisfy { $0.url.host == harness.tenant.authority.host })
        #expect(!"\(error)".contains("attacker"), "the refused link is not echoed")
    }
}
