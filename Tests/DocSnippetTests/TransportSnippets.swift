// The samples of Docs/Transport.md (but two: TransportLinuxImportSample.swift and
// TransportPinningSample.swift), and the tests that run them against an emulated tenant. The
// samples that declare a type next to a statement stand in a test function, where both can.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// An emulated tenant that accepts the client id of the guides' configurations.
private func guideTenant() -> EmulatedTenant {
    let tenant = EmulatedTenant(clientId: "00000000-0000-0000-0000-000000000000", random: SeededRandomSource(seed: 1))
    tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
    return tenant
}

@Suite(.hangLimit)
struct TransportSnippetTests {
    @Test func usesURLSession() throws {
        let configuration = try makeConfiguration()
        // snippet: transport-url-session
        let transport = URLSessionTransport(timeout: 15)
        let client = NativeAuthClient(configuration: configuration, transport: transport)
        // snippet: end
        #expect(client.configuration.clientId == configuration.clientId)
    }

    @Test func aCannedTransportAnswersEveryRequest() async throws {
        // snippet: transport-canned
        // import Foundation
        // import NativeAuth

        struct CannedTransport: HTTPTransport {
            let status: Int
            let json: String

            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                HTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
            }
        }

        // Every request is answered "user not found":
        let transport = CannedTransport(
            status: 400, json: #"{"error":"user_not_found","error_codes":[50034],"error_description":"No such user."}"#)
        // snippet: end

        let client = NativeAuthClient(
            configuration: try makeConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "ada@example.com"))
        }
        #expect(error.isUserNotFound)
    }

    @Test func aWrappingTransportLogs() async throws {
        let configuration = try makeConfiguration()
        let console = Console()
        // The formatter leaves this alone: the sample keeps its line breaks.
        // swift-format-ignore
        try await Console.$current.withValue(console) {
            // snippet: transport-logging
            // import Foundation
            // import NativeAuth

            struct LoggingTransport: HTTPTransport {
                let base: any HTTPTransport

                func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                    let started = ContinuousClock.now
                    do {
                        let response = try await base.send(request)
                        print("\(request.method) \(request.url.path) → \(response.statusCode) in \(ContinuousClock.now - started)")
                        return response
                    } catch {
                        print("\(request.method) \(request.url.path) failed: \(type(of: error))")
                        throw error
                    }
                }
            }

            let client = NativeAuthClient(
                configuration: configuration, transport: LoggingTransport(base: URLSessionTransport()))
            // snippet: end
            #expect(client.configuration.clientId == configuration.clientId)

            let tenant = guideTenant()
            let logged = NativeAuthClient(
                configuration: configuration, transport: LoggingTransport(base: tenant),
                credentialStore: InMemoryCredentialStore())
            _ = try await logged.signIn(
                SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        }
        #expect(console.printed("POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate → 200 in"))
    }

    @Test func aWrappingTransportAddsAHeader() async throws {
        // snippet: transport-attesting
        // import NativeAuth

        struct AttestingTransport: HTTPTransport {
            let base: any HTTPTransport
            let attestation: @Sendable () async throws -> String

            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                var request = request
                request.headers["x-contoso-attestation"] = try await attestation()
                return try await base.send(request)
            }
        }
        // snippet: end

        let tenant = guideTenant()
        let client = NativeAuthClient(
            configuration: try makeConfiguration(),
            transport: AttestingTransport(base: tenant, attestation: { "attested" }),
            credentialStore: InMemoryCredentialStore())
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        #expect(tenant.receivedRequests.allSatisfy { $0.header("x-contoso-attestation") == "attested" })
    }

    @Test func sendsCustomHeaders() async throws {
        // snippet: transport-custom-headers
        let configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000",
            tenantSubdomain: "contoso",
            customHeaders: ["x-contoso-app-build": "2025.11.3", "x-contoso-channel": "beta"])
        // snippet: end
        let tenant = guideTenant()
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        let request = try #require(tenant.receivedRequests.first)
        #expect(request.header("x-contoso-app-build") == "2025.11.3")
        #expect(request.header("x-contoso-channel") == "beta")
    }

    @Test func setsTheRequestTimeout() throws {
        // snippet: transport-request-timeout
        var configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
        configuration.requestTimeout = 20  // give up on any request after 20 seconds
        // snippet: end
        #expect(configuration.requestTimeout == 20)
    }

    @Test func setsTheLongestRetryWait() throws {
        // snippet: transport-retry-wait
        var configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
        configuration.maximumRetryWait = 3  // wait at most 3 seconds for a Retry-After, else report it
        // snippet: end
        #expect(configuration.maximumRetryWait == 3)
    }
}

@Suite(.hangLimit)
struct RequestInterceptorSampleTests {
    @Test func theAttestationHeaderReachesTheServer() async throws {
        let tenant = guideTenant()
        let clientId = tenant.clientId
        @Sendable func attest() async throws -> String { "attested" }
        // snippet: transport-request-interceptor
        // import NativeAuth

        struct AttestationHeader: RequestInterceptor {
            let attestation: @Sendable () async throws -> String

            func intercept(_ request: inout InterceptedRequest) async throws {
                guard request.endpoint.name != "discovery" else { return }
                try request.setHeader("x-contoso-attestation", try await attestation())
            }
        }

        var configuration = try NativeAuthConfiguration(clientId: clientId, tenantSubdomain: "contoso")
        configuration.requestInterceptors = [AttestationHeader(attestation: { try await attest() })]
        // snippet: end
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        #expect(!tenant.receivedRequests.isEmpty)
        #expect(tenant.receivedRequests.allSatisfy { $0.header("x-contoso-attestation") == "attested" })
    }
}
