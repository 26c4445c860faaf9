import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A device whose clock is off: the first proof of a run carries the device's time, which a
/// server that checks `iat` within seconds refuses (glewlwyd: 5 s ahead, 60 s behind, 403
/// `invalid_dpop_proof`). The SDK takes the server's time from the refusal's `Date` and sends the
/// request once more.
@Suite("DPoP proofs on the server's clock", .hangLimit)
struct DPoPClockTests {
    let harness = PARClient()
    let keys = RecordingKeyProvider()

    /// `date` as an HTTP `Date` header (IMF-fixdate).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A provider whose clock is `offset` seconds from `clock`: every answer carries its `Date`;
    /// a proof whose `iat` is more than 5 s ahead of its time or 60 s behind is refused with 403
    /// `invalid_dpop_proof`, and then, when `nonce` is set, a proof without it gets
    /// `use_dpop_nonce` (glewlwyd's order). `refusesAll` refuses every proof (another key's, say).
    static func provider(
        clock: TestClock, offset: TimeInterval, nonce: String? = nil, refusesAll: Bool = false
    ) -> ScriptedOpenIDProvider {
        ScriptedOpenIDProvider(
            endpoints: .standard(revocation: true), extraDiscovery: #""dpop_signing_alg_values_supported":["RS256"]"#
        ) { exchange in
            let serverNow = clock.now().addingTimeInterval(offset)
            let date = ["Date": httpDate(serverNow), "Content-Type": "application/json"]
            let proof = try ReadProof(exchange.request)
            let iat = TimeInterval(try #require(proof.claims["iat"]?.intValue))
            let seconds = serverNow.timeIntervalSince1970.rounded(.down)
            if refusesAll || iat > seconds + 5 || iat < seconds - 60 {
                return HTTPResponse(
                    statusCode: 403, headers: date,
                    body: Data(#"{"error":"invalid_dpop_proof","error_description":"Invalid DPoP"}"#.utf8))
            }
            if let nonce, proof.nonce != nonce {
                return HTTPResponse(
                    statusCode: 400, headers: date.merging(["DPoP-Nonce": nonce]) { $1 },
                    body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
            }
            let idToken =
                exchange.grantType == "authorization_code"
                ? #","id_token":""# + WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: exchange.nonce))
                    + #"""# : ""
            return HTTPResponse(
                statusCode: 200, headers: date,
                body: Data((DPoPClientTests.bound + #""refresh_token":"bound-refresh""# + idToken + "}").utf8))
        }
    }

    func client(_ provider: ScriptedOpenIDProvider, keys: RecordingKeyProvider? = nil) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        configuration.logger = harness.logger
        configuration.dpop = DPoPConfiguration(keyProvider: keys ?? self.keys)
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: harness.store, configuration: configuration)
    }

    func issuedAt(_ provider: ScriptedOpenIDProvider) throws -> [Int?] {
        try provider.requests(to: "/token").map { try ReadProof($0).claims["iat"]?.intValue }
    }

    @Test func aClockAheadOfTheServersIsCorrectedByTheRefusalsDateAndTheRequestGoesOnceMore() async throws {
        let provider = Self.provider(clock: harness.clock, offset: -30)
        let account = try await client(provider).signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let device = Int(harness.clock.now().timeIntervalSince1970)
        #expect(try issuedAt(provider) == [device, device - 30])
        let proofs = try provider.requests(to: "/token").map(ReadProof.init)
        #expect(proofs[0].claims["jti"] != proofs[1].claims["jti"], "a new proof, not the refused one again")
        // The refresh is on the server's clock at once.
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(try issuedAt(provider).last == device - 30)
        #expect(provider.count("/token") == 3)
        // A new run knows nothing of the server's clock: its first refresh is corrected the same way.
        let restarted = try #require(try await client(provider, keys: RecordingKeyProvider()).currentAccount())
        _ = try await restarted.getAccessToken(forceRefresh: true)
        #expect(try issuedAt(provider).suffix(2) == [device, device - 30])
        #expect(try await restarted.getAccessToken().accessToken == "bound-access")
    }

    @Test func aClockBehindTheServersWindowIsCorrectedToo() async throws {
        let provider = Self.provider(clock: harness.clock, offset: 90)
        _ = try await client(provider).signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let device = Int(harness.clock.now().timeIntervalSince1970)
        #expect(try issuedAt(provider) == [device, device + 90])
    }

    @Test func aCorrectedClockAndThenANonceTakeThreeRequests() async throws {
        let provider = Self.provider(clock: harness.clock, offset: -30, nonce: "n-1")
        _ = try await client(provider).signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let proofs = try provider.requests(to: "/token").map(ReadProof.init)
        #expect(proofs.map(\.nonce) == [nil, nil, "n-1"])
        let device = Int(harness.clock.now().timeIntervalSince1970)
        #expect(try issuedAt(provider) == [device, device - 30, device - 30])
    }

    @Test func aRefusalWhoseDateAgreesWithTheProofIsNotSentAgain() async throws {
        let provider = Self.provider(clock: harness.clock, offset: 0, refusesAll: true)
        let client = try client(provider)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(error.dpopProblem == .proofRefused)
        #expect(error.httpStatusCode == 403)
        #expect(provider.count("/token") == 1)
        #expect(try await harness.storesNothing())
    }

    @Test func aRefusalAfterTheCorrectionIsTheAnswer() async throws {
        let provider = Self.provider(clock: harness.clock, offset: -30, refusesAll: true)
        let client = try client(provider)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(error.dpopProblem == .proofRefused)
        #expect(provider.count("/token") == 2, "the clock is corrected once per request")
    }

    /// Beyond ``WebProvider/maximumClockCorrection`` the server's `Date` is not believed: the proof
    /// keeps the device's time, and the refusal is the answer.
    @Test func aDateTooFarOffIsNotBelieved() async throws {
        let provider = Self.provider(clock: harness.clock, offset: -600)
        let client = try client(provider)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(error.dpopProblem == .proofRefused)
        #expect(provider.count("/token") == 1)
        #expect(try await harness.storesNothing())
    }

    /// A resource's refusal is answered the same way, on the resource's clock, for that request:
    /// glewlwyd's form (a JSON body) and RFC 9449's (a `DPoP` challenge) alike.
    @Test(arguments: [
        HTTPResponse(statusCode: 401, body: Data(#"{"error":"invalid_dpop_proof"}"#.utf8)),
        HTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": #"DPoP error="invalid_dpop_proof""#]),
    ])
    func aResourcesRefusalOnAnotherClockIsAnsweredOnce(refusal: HTTPResponse) async throws {
        let provider = Self.provider(clock: harness.clock, offset: 0)
        let account = try await client(provider).signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        var dated = refusal
        dated.headers["Date"] = Self.httpDate(harness.clock.now().addingTimeInterval(-30))
        let api = ScriptedTransport()
        api.then("me", .response(dated))
        api.then("me", .response(HTTPResponse(statusCode: 200, body: Data("ok".utf8))))
        let response = try await account.send(
            HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/me")!), using: api)
        #expect(response.statusCode == 200)
        let device = Int(harness.clock.now().timeIntervalSince1970)
        #expect(try api.requests.map { try ReadProof($0).claims["iat"]?.intValue } == [device, device - 30])
    }

    @Test func aResourcesRefusalOnTheSameClockIsReturnedAsItCame() async throws {
        let provider = Self.provider(clock: harness.clock, offset: 0)
        let account = try await client(provider).signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let api = ScriptedTransport()
        api.then(
            "me",
            .response(
                HTTPResponse(
                    statusCode: 401, headers: ["Date": Self.httpDate(harness.clock.now())],
                    body: Data(#"{"error":"invalid_dpop_proof"}"#.utf8))))
        let response = try await account.send(
            HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/me")!), using: api)
        #expect(response.statusCode == 401)
        #expect(api.requests.count == 1)
    }

    @Test func aTokenEndpointRefusalIsAnInvalidProofErrorWhateverItsStatus() {
        let refusal = Data(#"{"error":"invalid_dpop_proof"}"#.utf8)
        for status in [400, 401, 403] {
            #expect(DPoPSigner.isTokenEndpointProofRefusal(HTTPResponse(statusCode: status, body: refusal)))
        }
        #expect(!DPoPSigner.isTokenEndpointProofRefusal(HTTPResponse(statusCode: 200, body: refusal)))
        #expect(
            !DPoPSigner.isTokenEndpointProofRefusal(
                HTTPResponse(statusCode: 400, body: Data(#"{"error":"invalid_grant"}"#.utf8))))
        #expect(!DPoPSigner.isTokenEndpointProofRefusal(HTTPResponse(statusCode: 400)))
        #expect(!DPoPSigner.isResourceProofRefusal(HTTPResponse(statusCode: 403, body: refusal)))
        #expect(
            !DPoPSigner.isResourceProofRefusal(
                HTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": #"DPoP error="invalid_token""#])))
    }
}
