import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// How `send` reads a resource's `WWW-Authenticate` (RFC 9110 §11.6.1) for its claims challenge and
/// its `invalid_token`: by the challenge grammar, so a value written with an empty list element or
/// base64 padding is read, and an error named inside another parameter's value is not an error.
@Suite("Account: a resource's challenges, read by the grammar", .hangLimit)
struct ResourceChallengeTests {
    /// `{"access_token":{}}`, base64 with its padding.
    static let padded = "eyJhY2Nlc3NfdG9rZW4iOnt9fQ=="
    static let claims = #"{"access_token":{}}"#

    func parameters(_ header: String) -> [String: String]? {
        AuthenticationChallenges(header).flatMap { $0.challenges.count == 1 ? $0.challenges[0].parameters : nil }
    }

    // MARK: What RFC 9110 lets a recipient take

    @Test func anUnquotedValueMayEndInBase64Padding() {
        #expect(parameters("Bearer error=insufficient_claims, claims=\(Self.padded)")?["claims"] == Self.padded)
        #expect(parameters("Bearer claims=e30=, error=insufficient_claims")?["claims"] == "e30=")
        #expect(parameters("Bearer claims = e30= ")?["claims"] == "e30=")
        #expect(
            UserAccountResult.claimsChallenge("Bearer error=insufficient_claims, claims=\(Self.padded)") == Self.claims)
        // A token68 challenge is still one.
        let token68 = AuthenticationChallenges("Basic YWxhZGRpbjpvcGVuc2VzYW1l==, Bearer error=x, claims=e30=")
        #expect(token68?.challenges.map(\.scheme) == ["basic", "bearer"])
        #expect(token68?.challenges.last?.parameters == ["error": "x", "claims": "e30="])
        // Only at the end of the value: RFC 9110 has no `=` in a token, so nothing more is taken.
        refused([
            "Bearer error=insufficient_claims, claims=e3==0",
            "Bearer error=insufficient_claims, claims=e30= =",
            "Bearer error=insufficient_claims, claims==e30",
        ])
    }

    @Test func anEmptyListElementAfterTheSchemeKeepsTheParametersWithIt() throws {
        let header = "Bearer , error=\"insufficient_claims\", claims=\"\(Self.padded)\""
        #expect(parameters(header) == ["error": "insufficient_claims", "claims": Self.padded])
        #expect(UserAccountResult.claimsChallenge(header) == Self.claims)
        #expect(parameters("Bearer  , ,, error = invalid_token")?["error"] == "invalid_token")
        // A scheme followed by an empty element and another scheme is two challenges, as before.
        let two = try #require(AuthenticationChallenges("Bearer , DPoP algs=\"ES256\", Basic"))
        #expect(
            two.challenges == [
                .init(scheme: "bearer", parameters: [:]), .init(scheme: "dpop", parameters: ["algs": "ES256"]),
                .init(scheme: "basic", parameters: [:]),
            ])
        refused([
            // Without the space after the scheme no auth-param list began (§11.6.1: `1*SP`), and
            // `error=…` cannot start a challenge.
            "Bearer,error=insufficient_claims, claims=e30=",
            "Bearer, error=insufficient_claims, claims=e30=",
            // A token68 is no list element.
            "Bearer , YWxhZGRpbjpvcGVuc2VzYW1l==",
            // Parameters are still separated by commas (§11.2's `#auth-param`): none is missed.
            "Bearer , error=insufficient_claims claims=e30",
            "Bearer error=insufficient_claims claims=e30=",
            "Bearer error=\"insufficient_claims\" claims=\"e30\"",
        ])
    }

    /// `headers` are refused whole, and so hold no claims challenge.
    func refused(_ headers: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for header in headers {
            #expect(
                AuthenticationChallenges(header) == nil, "\(header.debugDescription)", sourceLocation: sourceLocation)
            #expect(UserAccountResult.claimsChallenge(header) == nil, sourceLocation: sourceLocation)
        }
    }

    // MARK: The claims challenge on either scheme

    @Test func aDPoPClaimsChallengeIsRead() {
        let encoded = Data(Self.claims.utf8).base64EncodedString()
        #expect(
            UserAccountResult.claimsChallenge(#"DPoP error="insufficient_claims", claims="\#(encoded)""#) == Self.claims
        )
        #expect(
            UserAccountResult.claimsChallenge(#"DPoP algs="ES256", error="insufficient_claims", claims="\#(encoded)""#)
                == Self.claims)
        #expect(UserAccountResult.claimsChallenge(#"Basic error="insufficient_claims", claims="\#(encoded)""#) == nil)
    }

    // MARK: invalid_token is the error of a Bearer or DPoP challenge, nowhere else

    @Test func invalidTokenIsReadOnlyAsAChallengesError() {
        #expect(UserAccountResult.saysTokenInvalid(#"DPoP error="invalid_token", algs="ES256""#))
        #expect(UserAccountResult.saysTokenInvalid(#"Basic realm="x", Bearer , ERROR=Invalid_Token"#))
        #expect(
            !UserAccountResult.saysTokenInvalid(
                #"Bearer error="insufficient_scope", error_description="error=invalid_token""#))
        #expect(!UserAccountResult.saysTokenInvalid(#"Bearer realm="error=invalid_token""#))
        #expect(
            !UserAccountResult.saysTokenInvalid(
                #"Bearer realm="api", error_uri="https://e.example/?error=invalid_token""#))
        #expect(!UserAccountResult.saysTokenInvalid(#"Basic error="invalid_token", Bearer realm="api""#))
        #expect(!UserAccountResult.saysTokenInvalid(#"Bearer error="invalid_token_type""#))
    }

    // MARK: send

    func signedIn() async throws -> (ScriptedTransport, UserAccountResult) {
        let transport = ScriptedTransport()
        let client = NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
        return (transport, try await transport.signIn(client))
    }

    @Test(arguments: [
        "Bearer error=insufficient_claims, claims=\(padded)",
        "Bearer , error=\"insufficient_claims\", claims=\"\(padded)\"",
        "DPoP error=\"insufficient_claims\", claims=\"\(padded)\"",
    ])
    func sendThrowsTheClaimsOfAChallengeWrittenAnyWayTheGrammarAllows(header: String) async throws {
        let (transport, account) = try await signedIn()
        let resource = ScriptedTransport()
        resource.then("orders", .response(HTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": header])))
        let error = try await #require(throws: AuthorizedRequestError.self) {
            try await account.send(
                HTTPRequest(method: "GET", url: URL(string: "https://api.example/orders")!), using: resource)
        }
        #expect(error.isInteractionRequired && !error.isStepUpRequired)
        #expect(error.claims == Self.claims)
        #expect(resource.requests.count == 1 && transport.requests.count == 3, "no retry, no refresh")
    }

    @Test(arguments: [
        #"Bearer error="insufficient_scope", error_description="error=invalid_token""#,
        #"Bearer realm="error=invalid_token""#,
        #"Basic error="invalid_token", Bearer realm="api""#,
    ])
    func sendDoesNotRefreshForAnInvalidTokenNamedElsewhere(header: String) async throws {
        let (transport, account) = try await signedIn()
        let resource = ScriptedTransport()
        resource.then("orders", .response(HTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": header])))
        let response = try await account.send(
            HTTPRequest(method: "GET", url: URL(string: "https://api.example/orders")!), using: resource)
        #expect(response.statusCode == 401)
        #expect(resource.requests.count == 1, "not sent again")
        #expect(transport.requests.count == 3, "no refresh")
    }
}
