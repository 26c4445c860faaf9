import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long any one socket call of a test waits before it gives up: every wait over loopback is
/// bounded by it (a server that stops answering fails the test instead of hanging it).
let socketBound = RawHTTP.timeout

/// A harness tenant (manual clock, seeded random, the fixture users) served on 127.0.0.1.
struct ServedTenant {
    let harness: Harness
    let server: EmulatorServer
    let transport = URLSessionTransport(timeout: socketBound)

    init(
        configuration: EmulatorServer.Configuration = EmulatorServer.Configuration(),
        configure: (inout EmulatorSettings) -> Void = { _ in }
    ) throws {
        harness = Harness(configure: configure)
        server = try EmulatorServer(tenant: harness.tenant, configuration: configuration)
        server.start()
    }

    var tenant: EmulatedTenant { harness.tenant }
    var port: UInt16 { server.port }

    /// A client of the server over real loopback HTTP, on the tenant's manual clock.
    func client(
        store: any CredentialStore = InMemoryCredentialStore(), protocol version: NativeAuthProtocol = .v1
    ) throws -> NativeAuthClient {
        var configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: server.authority,
            capabilities: [.mfaRequired, .registrationRequired])
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.protocolVersion = version
        return NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
    }

    /// A control API call with an optional JSON body; the answer's status and JSON object.
    func control(_ method: String, _ path: String, _ body: String? = nil) async throws -> ControlReply {
        let url = try #require(URL(string: server.controlURL.absoluteString + path))
        var headers: [String: String] = [:]
        if body != nil { headers["Content-Type"] = "application/json" }
        let response = try await transport.send(
            HTTPRequest(method: method, url: url, headers: headers, body: body.map { Data($0.utf8) }))
        return try ControlReply(response)
    }

    /// A plain control API `GET /info` over URLSession: the server answers normal requests.
    func expectServing(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let info = try await control("GET", "/info")
        #expect(info.status == 200, sourceLocation: sourceLocation)
        #expect(info["clientId"] as? String == tenant.clientId, sourceLocation: sourceLocation)
    }
}

/// A control API answer.
struct ControlReply {
    let response: HTTPResponse
    let json: [String: Any]

    init(_ response: HTTPResponse) throws {
        self.response = response
        json =
            response.body.isEmpty
            ? [:] : (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    var status: Int { response.statusCode }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    subscript(key: String) -> Any? { json[key] }
    var error: String? { json["error"] as? String }
}
