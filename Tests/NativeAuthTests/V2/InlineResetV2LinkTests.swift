import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Where the password state of a V2 sign-in finds the password method's `recover` link, and what
/// a hostile one does (Docs/NativeAuthV2.md, "Inline password reset").
@Suite("V2: the recover link of the password method", .hangLimit)
struct InlineResetV2LinkTests {
    let harness = EmulatorHarness()

    /// Removes `relation` from `_links`.
    static func removing(_ relation: String) -> @Sendable (inout [String: Any]) -> Void {
        { object in
            var links = object["_links"] as? [String: Any] ?? [:]
            links[relation] = nil
            object["_links"] = links
        }
    }

    @Test("the method's recover link where the challenge offered it, when the verify answer has none")
    func theOfferedMethodsLink() async throws {
        harness.tenant.configure { $0.nativeAuthV2FirstFactorChoice = true }
        // The start offers the password method alone (with its `recover` link); the answer to its
        // `challenge` carries no `recover` link of its own.
        let verify = RewritingTransport(harness.tenant, after: "/challenge", Self.removing("recover"))
        let start = RewritingTransport(verify, after: "/signin/start") { object in
            guard var embedded = object["_embedded"] as? [String: Any],
                let methods = embedded["methods"] as? [[String: Any]]
            else { return }
            embedded["methods"] = methods.filter { $0["type"] as? String == "password" }
            object["_embedded"] = embedded
        }
        let client = V2Clients.client(harness, transport: start)
        guard case .passwordRequired(let state) = try await client.signIn(SignInParameters(username: "ada@example.com"))
        else { throw TestFailure("expected passwordRequired") }
        let challenge = try #require(start.requests.last { $0.url.path.hasSuffix("/challenge") })
        #expect(challenge.url.path.contains("/methods/password/"))
        guard case .codeRequired = try await state.resetPassword() else { throw TestFailure("expected codeRequired") }
        #expect(start.requests.contains { $0.url.path.hasSuffix("/recover") })
        #expect(!start.requests.contains { $0.url.path.hasSuffix("/resetpassword/start") })
    }

    @Test(arguments: [
        "https://attacker.example/contoso.onmicrosoft.com/api/v2.0/auth/methods/password/p/recover",
        "http://login.emulator.test/contoso.onmicrosoft.com/api/v2.0/auth/methods/password/p/recover",
        "//attacker.example/api/v2.0/recover", "/contoso.onmicrosoft.com/not-an-api/recover",
    ])
    func aHostileRecoverLinkEndsTheSignInBeforeThePasswordIsAskedFor(href: String) async throws {
        let transport = RewritingTransport(harness.tenant, after: "/signin/start") { object in
            var links = object["_links"] as? [String: Any] ?? [:]
            links["recover"] = ["href": href]
            object["_links"] = links
        }
        let client = V2Clients.client(harness, transport: transport)
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "ada@example.com"))
        }
        #expect(error.isUnexpectedResponse)
        #expect(transport.requests.allSatisfy { $0.url.host == harness.tenant.authority.host })
        #expect(transport.requests.count == 2, "authorize-challenge and signin/start only")
    }
}
