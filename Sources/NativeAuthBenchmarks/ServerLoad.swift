import Foundation
import LoopbackHTTP
import NativeAuth
import NativeAuthEmulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The load benchmark of `EmulatorServer`: concurrent clients doing whole email-code sign-ins over
/// loopback HTTP for a bounded time, with the SDK (`NativeAuthClient` on `URLSessionTransport`)
/// and with a hand-rolled `URLSession` client sending the same requests, against the same server
/// in the same run; then the server with thousands of idle connections open (IdleConnections.swift).
///
/// The comparison is kept fair: both clients are checked to send the same form fields to the same
/// endpoints; each client gets its own `URLSession` per virtual client, from the same
/// configuration (`.ephemeral`); the time is split into rounds that alternate which client goes
/// first; and before every round the tenant goes back to the same state (the codes, flows and
/// refresh tokens of earlier rounds would otherwise make later rounds slower).
enum ServerLoad {
    enum Kind: String, CaseIterable {
        case sdk = "SDK over loopback HTTP"
        case handRolled = "hand-rolled URLSession client"
    }

    /// What one client kind did over all its rounds.
    struct Result {
        let kind: Kind
        var latencies: [Double] = []  // nanoseconds per whole sign-in
        var seconds = 0.0
        var errors = 0
        var requests = 0
        var connections = 0
        var cpuNanoseconds = 0.0

        var stats: Stats { Stats(latencies) }
        var signInsPerSecond: Double { Double(latencies.count) / max(seconds, 1e-9) }

        func line() -> String {
            let stats = stats
            let count = max(latencies.count, 1)
            func ms(_ ns: Double) -> String { String(format: "%.2f ms", ns / 1e6) }
            return "\(kind.rawValue): \(latencies.count) sign-ins in \(String(format: "%.1f", seconds)) s = "
                + String(format: "%.0f/s", signInsPerSecond) + ", p50=\(ms(stats.percentile(0.5)))"
                + " p99=\(ms(stats.percentile(0.99))) max=\(ms(stats.samples.last ?? 0)), \(errors) errors, "
                + String(format: "%.1f", Double(requests) / Double(count)) + " requests per sign-in, "
                + "\(connections) connections accepted, "
                + String(format: "%.2f ms", cpuNanoseconds / 1e6 / Double(count)) + " process CPU per sign-in"
        }
    }

    /// - Parameter only: Runs that client alone (to profile it), with no comparison or idle check.
    static func run(clients: Int, seconds: Double, rounds: Int, idle: Int, only: Kind? = nil) async throws {
        let tenant = EmulatedTenant(tenantSubdomain: "bench")
        let usernames = (0..<clients).map { "bench-\($0)@example.com" }
        for username in usernames { tenant.addUser(EmulatedUser(username: username)) }
        let initial = tenant.snapshot()
        var configuration = EmulatorServer.Configuration()
        configuration.maxConnections = max(1024, clients * 4)
        let server = try EmulatorServer(tenant: tenant, configuration: configuration)
        server.start()
        let rounds = max(1, rounds)
        print(
            "Emulator server load: \(clients) concurrent clients, \(String(format: "%.0f", seconds)) s each "
                + "in \(rounds) alternating rounds, whole email-code sign-ins (initiate, challenge, token) on "
                + server.authority.absoluteString)
        print("Both clients send: " + (try await checkSameRequests(tenant: tenant, server: server)))

        // Warm up both clients: connections, caches, code paths.
        for kind in Kind.allCases where only == nil || only == kind {
            try restore(tenant, initial)
            var warmUp = Result(kind: kind)
            try await measure(kind, into: &warmUp, tenant: tenant, usernames: usernames, seconds: 1, server)
        }
        var results = Kind.allCases.map { Result(kind: $0) }
        for round in 0..<rounds {
            // ABBA...: each client goes first in half the rounds.
            var order = round % 2 == 0 ? [0, 1] : [1, 0]
            if let only { order = order.filter { Kind.allCases[$0] == only } }
            for index in order {
                try restore(tenant, initial)
                try await measure(
                    results[index].kind, into: &results[index], tenant: tenant, usernames: usernames,
                    seconds: seconds / Double(rounds), server)
            }
        }
        if let only {
            print(results[Kind.allCases.firstIndex(of: only) ?? 0].line())
            await server.stop()
            return
        }
        let (sdk, raw) = (results[0], results[1])
        print(sdk.line())
        print(raw.line())
        print(
            String(
                format: "SDK / hand-rolled: throughput %.2f, p50 latency %.2f, p99 latency %.2f, CPU per sign-in %.2f",
                sdk.signInsPerSecond / max(raw.signInsPerSecond, 1e-9),
                sdk.stats.percentile(0.5) / max(raw.stats.percentile(0.5), 1),
                sdk.stats.percentile(0.99) / max(raw.stats.percentile(0.99), 1),
                (sdk.cpuNanoseconds / Double(max(sdk.latencies.count, 1)))
                    / max(raw.cpuNanoseconds / Double(max(raw.latencies.count, 1)), 1)))
        await server.stop()

        if idle > 0 { try await IdleConnections.run(count: idle) }
    }

    /// Puts the tenant back to `snapshot`: the users only, no codes, flows or refresh tokens.
    static func restore(_ tenant: EmulatedTenant, _ snapshot: Data) throws {
        tenant.reset()
        try tenant.restore(from: snapshot)
        tenant.clearReceivedRequests()
    }

    /// Signs in once with each client and checks that they send the same form fields to the same
    /// endpoints; returns what they send.
    static func checkSameRequests(tenant: EmulatedTenant, server: EmulatorServer) async throws -> String {
        let configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: server.authority, challengeTypes: [.oob, .password])
        let username = "bench-0@example.com"
        var sent: [String] = []
        for kind in Kind.allCases {
            tenant.clearReceivedRequests()
            switch kind {
            case .sdk:
                let client = NativeAuthClient(
                    configuration: configuration, transport: URLSessionTransport(),
                    credentialStore: InMemoryCredentialStore())
                try await sdkSignIn(client, username: username, tenant: tenant)
            case .handRolled:
                try await HandRolledHTTPClient(server: server, clientId: tenant.clientId)
                    .signIn(username: username, tenant: tenant)
            }
            sent.append(
                tenant.receivedRequests.map { request in
                    let fields = String(decoding: request.body ?? Data(), as: UTF8.self)
                        .split(separator: "&").map {
                            $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                        }
                    // The headers the client chose; those URLSession adds are the same for both.
                    let headers = request.headers.keys.map { $0.lowercased() }.filter {
                        !urlSessionHeaders.contains($0)
                    }
                    return
                        "\(request.method) \(request.url.lastPathComponent) [\(fields.sorted().joined(separator: " "))]"
                        + " {\(headers.sorted().joined(separator: " "))}"
                }.joined(separator: ", "))
        }
        guard sent[0] == sent[1] else {
            throw BenchmarkFailure.setup("the clients send different requests: SDK \(sent[0]); hand-rolled \(sent[1])")
        }
        return sent[0]
    }

    /// Headers URLSession (or the server, for the tenant) adds whoever the client is.
    static let urlSessionHeaders: Set<String> = [
        "accept-encoding", "accept-language", "user-agent", "forwarded", "content-length", "host", "connection",
    ]

    /// Runs one virtual client per username, each signing in again and again until `seconds`
    /// pass, and adds what they did to `result`.
    static func measure(
        _ kind: Kind, into result: inout Result, tenant: EmulatedTenant, usernames: [String], seconds: Double,
        _ server: EmulatorServer
    ) async throws {
        let clock = ContinuousClock()
        let configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: server.authority, challengeTypes: [.oob, .password])
        let acceptedBefore = server.connectionCounts.accepted
        let cpuBefore = Comparison.cpuNanoseconds()
        let start = clock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let outcomes = await withTaskGroup(of: ([Double], Int).self) { group in
            for username in usernames {
                group.addTask {
                    let signIn: @Sendable () async throws -> Void
                    switch kind {
                    case .sdk:
                        let client = NativeAuthClient(
                            configuration: configuration, transport: URLSessionTransport(),
                            credentialStore: InMemoryCredentialStore())
                        signIn = { try await sdkSignIn(client, username: username, tenant: tenant) }
                    case .handRolled:
                        let client = HandRolledHTTPClient(server: server, clientId: tenant.clientId)
                        signIn = { try await client.signIn(username: username, tenant: tenant) }
                    }
                    var samples: [Double] = []
                    var errors = 0
                    while clock.now < deadline {
                        let begin = clock.now
                        do {
                            try await signIn()
                            samples.append(nanoseconds(clock.now - begin))
                        } catch {
                            errors += 1
                        }
                    }
                    return (samples, errors)
                }
            }
            var all: [([Double], Int)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        result.seconds += nanoseconds(clock.now - start) / 1e9
        result.cpuNanoseconds += Comparison.cpuNanoseconds() - cpuBefore
        result.latencies += outcomes.flatMap(\.0)
        result.errors += outcomes.map(\.1).reduce(0, +)
        result.requests += tenant.receivedRequests.count
        result.connections += server.connectionCounts.accepted - acceptedBefore
    }

    static func sdkSignIn(_ client: NativeAuthClient, username: String, tenant: EmulatedTenant) async throws {
        guard case .codeRequired(let state, _, _, _) = try await client.signIn(SignInParameters(username: username))
        else { throw BenchmarkFailure.setup("expected a code") }
        guard let code = tenant.lastCode(sentTo: username) else { throw BenchmarkFailure.setup("no code sent") }
        guard case .completed = try await state.submitCode(code) else { throw BenchmarkFailure.setup("not signed in") }
    }
}

/// The same three requests as the SDK's code sign-in, with the same form fields and headers
/// (the correlation id and client identification the API asks for), sent with a bare `URLSession`
/// (`.ephemeral`, as the SDK's transport starts from) and read with `JSONSerialization`: no state
/// machine, no token validation, no credential store.
struct HandRolledHTTPClient: Sendable {
    let session = URLSession(configuration: .ephemeral)
    let server: EmulatorServer
    let clientId: String
    static let operatingSystem = ProcessInfo.processInfo.operatingSystemVersionString

    func signIn(username: String, tenant: EmulatedTenant) async throws {
        let correlationId = UUID().uuidString.lowercased()
        let initiate = try await post(
            .initiate, ["username": username, "challenge_type": "oob password redirect"], correlationId)
        let challenge = try await post(
            .challenge,
            [
                "continuation_token": try field("continuation_token", initiate),
                "challenge_type": "oob password redirect",
            ], correlationId)
        guard let code = tenant.lastCode(sentTo: username) else { throw BenchmarkFailure.setup("no code sent") }
        let token = try await post(
            .token,
            [
                "continuation_token": try field("continuation_token", challenge), "grant_type": "oob", "oob": code,
                "scope": "openid offline_access profile", "client_info": "true",
            ], correlationId)
        _ = try field("access_token", token)
    }

    private func post(_ endpoint: EmulatorEndpoint, _ fields: [String: String], _ correlationId: String)
        async throws -> [String: Any]
    {
        var request = URLRequest(url: server.url(for: endpoint))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(correlationId, forHTTPHeaderField: "client-request-id")
        request.setValue("true", forHTTPHeaderField: "return-client-request-id")
        request.setValue("handrolled", forHTTPHeaderField: "x-client-SKU")
        request.setValue("1.0", forHTTPHeaderField: "x-client-Ver")
        request.setValue(Self.operatingSystem, forHTTPHeaderField: "x-client-OS")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let form = (["client_id": clientId].merging(fields) { $1 }).map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }
        request.httpBody = Data(form.joined(separator: "&").utf8)
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let data, (response as? HTTPURLResponse)?.statusCode == 200 {
                    continuation.resume(returning: data)
                } else {
                    continuation.resume(throwing: error ?? BenchmarkFailure.setup("\(endpoint.rawValue) failed"))
                }
            }.resume()
        }
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw BenchmarkFailure.setup("\(endpoint.rawValue) answered no JSON object")
        }
        return object
    }

    private func field(_ name: String, _ object: [String: Any]) throws -> String {
        guard let value = object[name] as? String else { throw BenchmarkFailure.setup("no \(name)") }
        return value
    }
}
