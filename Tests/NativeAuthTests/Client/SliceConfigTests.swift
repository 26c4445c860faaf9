import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// ``NativeAuthConfiguration/sliceConfig``: the `dc` and `slice` query parameters, added where
/// MSAL's native authentication adds them (Docs/NativeAuthV2Protocol.md, "The slice parameters").
@Suite("Slice parameters: dc on native requests and V2 links, slice and dc on a refresh", .hangLimit)
struct SliceConfigTests {
    static let authority =
        URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com") ?? URL(fileURLWithPath: "/")

    let harness = EmulatorHarness()

    func client(_ version: NativeAuthProtocol, slice: SliceConfig?) -> NativeAuthClient {
        guard
            var configuration = try? NativeAuthConfiguration(
                clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        else { preconditionFailure("emulator configuration") }
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.protocolVersion = version
        configuration.sliceConfig = slice
        return NativeAuthClient(
            configuration: configuration, transport: harness.tenant, credentialStore: InMemoryCredentialStore())
    }

    /// Signs ada in with her password, then refreshes her tokens once.
    func signInAndRefresh(_ client: NativeAuthClient) async throws {
        guard
            case .completed(let account) = try await client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        _ = try await account.getAccessToken(forceRefresh: true)
    }

    var queries: [String?] { harness.tenant.receivedRequests.map(\.url.query) }

    @Test(arguments: [NativeAuthProtocol.v1, .v2])
    func noSliceNoQuery(_ version: NativeAuthProtocol) async throws {
        try await signInAndRefresh(client(version, slice: nil))
        #expect(!queries.isEmpty && queries.allSatisfy { $0 == nil }, "\(queries)")
    }

    @Test("V1: dc on every native request, slice and dc on the refresh")
    func overV1() async throws {
        try await signInAndRefresh(client(.v1, slice: SliceConfig(slice: "test-slice", dc: "DC 1&2")))
        let requests = harness.tenant.receivedRequests
        #expect(requests.count == 4, "initiate, challenge, token, refresh")
        #expect(requests.dropLast().allSatisfy { $0.url.query == "dc=DC%201%262" }, "\(queries)")
        #expect(requests.last?.url.query == "slice=test-slice&dc=DC%201%262")
        #expect(requests.last?.url.path.hasSuffix("/oauth2/v2.0/token") == true)
    }

    @Test("V2: dc on authorize-challenge, every link and the code exchange; slice and dc on the refresh")
    func overV2() async throws {
        try await signInAndRefresh(client(.v2, slice: SliceConfig(slice: "test-slice", dc: "DC-1")))
        let requests = harness.tenant.receivedRequests
        #expect(requests.count == 6, "authorize-challenge, sign_in, verify, resume, token, refresh")
        #expect(requests.dropLast().allSatisfy { $0.url.query == "dc=DC-1" }, "\(queries)")
        #expect(requests.last?.url.query == "slice=test-slice&dc=DC-1")
    }

    @Test("only slice: nothing on native requests, slice on the refresh")
    func onlySlice() async throws {
        try await signInAndRefresh(client(.v1, slice: SliceConfig(slice: "test-slice")))
        #expect(queries.dropLast().allSatisfy { $0 == nil })
        #expect(queries.last == "slice=test-slice")
    }

    @Test("a link keeps its own dc; the configured one is added only when the href has none")
    func theHrefsDCWins() throws {
        let resolver = V2HrefResolver(authority: Self.authority, dataCenter: "mine")
        let base = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/api/v2.0/auth/methods/email/m/challenge"
        let cases: [(href: String, url: String)] = [
            ("/t/api/v2.0/auth/methods/email/m/challenge", base + "?dc=mine"),
            ("/t/api/v2.0/auth/methods/email/m/challenge?dc=theirs", base + "?dc=theirs"),
            ("/t/api/v2.0/auth/methods/email/m/challenge?x=1&d%63=theirs", base + "?x=1&d%63=theirs"),
            ("/t/api/v2.0/auth/methods/email/m/challenge?x=1", base + "?x=1&dc=mine"),
            ("/t/api/v2.0/auth/methods/email/m/challenge?", base + "?dc=mine"),
            ("/t/api/v2.0/auth/methods/email/m/challenge?dcx=1", base + "?dcx=1&dc=mine"),
        ]
        for (href, url) in cases {
            #expect(try resolver.resolve(href).url.absoluteString == url, "\(href)")
        }
        let plain = V2HrefResolver(authority: Self.authority)
        #expect(try plain.resolve("/t/api/v2.0/auth/methods/email/m/challenge").url.absoluteString == base)
        // The description of a link is its path: the query is not shown.
        #expect("\(try resolver.resolve("/t/api/v2.0/auth/methods/email/m/challenge"))".contains("?") == false)
    }

    @Test("an endpoint's own slice parameter is kept, not sent twice")
    func anEndpointsOwnParameterWins() throws {
        let pairs: [(name: String, value: String?)] = [("slice", "s"), ("dc", "mine")]
        let token = try #require(URL(string: "https://login.example.com/t/oauth2/v2.0/token?dc=theirs"))
        #expect(
            SliceConfig.appending(pairs, to: token).absoluteString
                == "https://login.example.com/t/oauth2/v2.0/token?dc=theirs&slice=s")
        let plain = try #require(URL(string: "https://login.example.com/t/oauth2/v2.0/token"))
        #expect(
            SliceConfig.appending(pairs, to: plain).absoluteString
                == "https://login.example.com/t/oauth2/v2.0/token?slice=s&dc=mine")
        #expect(SliceConfig.appending([("dc", nil)], to: plain) == plain)
    }

    @Test func theConfigurationDescribesBothValues() {
        #expect("\(SliceConfig(slice: "s", dc: "d"))" == #"SliceConfig(slice: "s", dc: "d")"#)
        #expect("\(SliceConfig())" == "SliceConfig(slice: nil, dc: nil)")
    }
}
