import Foundation
import NativeAuth
import NativeAuthEmulator

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The load benchmark of `EmulatorServer`: concurrent clients doing whole email-code sign-ins over
/// loopback HTTP for a bounded time, first with the SDK (`NativeAuthClient` on
/// `URLSessionTransport`), then with a hand-rolled `URLSession` client sending the same requests,
/// against the same server in the same run.
enum ServerLoad {
    struct Result {
        let name: String
        let latencies: Stats  // nanoseconds per whole sign-in
        let seconds: Double
        let errors: Int
        let requests: Int

        var signInsPerSecond: Double { Double(latencies.samples.count) / seconds }

        func line() -> String {
            func ms(_ ns: Double) -> String { String(format: "%.2f ms", ns / 1e6) }
            return "\(name): \(latencies.samples.count) sign-ins in \(String(format: "%.1f", seconds)) s = "
                + String(format: "%.0f/s", signInsPerSecond) + ", p50=\(ms(latencies.percentile(0.5)))"
                + " p99=\(ms(latencies.percentile(0.99))) max=\(ms(latencies.samples.last ?? 0))"
                + ", \(errors) errors, "
                + String(format: "%.1f", Double(requests) / Double(max(latencies.samples.count, 1)))
                + " requests per sign-in"
        }
    }

    static func run(clients: Int, seconds: Double) async throws {
        let tenant = EmulatedTenant(tenantSubdomain: "bench")
        let usernames = (0..<clients).map { "bench-\($0)@example.com" }
        for username in usernames { tenant.addUser(EmulatedUser(username: username)) }
        let server = try EmulatorServer(tenant: tenant)
        server.start()
        print(
            "Emulator server load: \(clients) concurrent clients, \(String(format: "%.0f", seconds)) s each, "
                + "whole email-code sign-ins (initiate, challenge, token) on \(server.authority.absoluteString)")

        // Warm up both clients: connections, caches, code paths.
        _ = try await measure(
            "warm-up", tenant: tenant, usernames: usernames, seconds: min(1, seconds), sdk: true, server)
        _ = try await measure(
            "warm-up", tenant: tenant, usernames: usernames, seconds: min(1, seconds), sdk: false, server)

        let sdk = try await measure(
            "SDK over loopback HTTP", tenant: tenant, usernames: usernames, seconds: seconds, sdk: true, server)
        print(sdk.line())
        let raw = try await measure(
            "hand-rolled URLSession client", tenant: tenant, usernames: usernames, seconds: seconds, sdk: false, server)
        print(raw.line())
        print(
            String(
                format: "SDK / hand-rolled: throughput %.2f, p50 latency %.2f, p99 latency %.2f",
                sdk.signInsPerSecond / max(raw.signInsPerSecond, 1e-9),
                sdk.latencies.percentile(0.5) / max(raw.latencies.percentile(0.5), 1),
                sdk.latencies.percentile(0.99) / max(raw.latencies.percentile(0.99), 1)))
        await server.stop()
    }

    /// Runs one virtual client per username, each signing in again and again until `seconds` pass.
    static func measure(
        _ name: String, tenant: EmulatedTenant, usernames: [String], seconds: Double, sdk: Bool,
        _ server: EmulatorServer
    ) async throws -> Result {
        tenant.clearReceivedRequests()
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .milliseconds(Int(seconds * 1000))
        let configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: server.authority, challengeTypes: [.oob, .password])
        let outcomes = await withTaskGroup(of: ([Double], Int).self) { group in
            for username in usernames {
                group.addTask {
                    let signIn: @Sendable () async throws -> Void
                    if sdk {
                        let client = NativeAuthClient(
                            configuration: configuration, transport: URLSessionTransport(),
                            credentialStore: InMemoryCredentialStore())
                        signIn = { try await sdkSignIn(client, username: username, tenant: tenant) }
                    } else {
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
        let elapsed = nanoseconds(clock.now - start) / 1e9
        return Result(
            name: name, latencies: Stats(outcomes.flatMap(\.0)), seconds: elapsed,
            errors: outcomes.map(\.1).reduce(0, +), requests: tenant.receivedRequests.count)
    }

    static func sdkSignIn(_ client: NativeAuthClient, username: String, tenant: EmulatedTenant) async throws {
        guard case .codeRequired(let state, _, _, _) = try await client.signIn(SignInParameters(username: username))
        else { throw BenchmarkFailure.setup("expected a code") }
        guard let code = tenant.lastCode(sentTo: username) else { throw BenchmarkFailure.setup("no code sent") }
        guard case .completed = try await state.submitCode(code) else { throw BenchmarkFailure.setup("not signed in") }
    }
}

/// The same three requests as the SDK's code sign-in, sent with a bare `URLSession` and read with
/// `JSONSerialization`: no state machine, no token validation, no credential store.
struct HandRolledHTTPClient: Sendable {
    let session = URLSession(configuration: .ephemeral)
    let server: EmulatorServer
    let clientId: String

    func signIn(username: String, tenant: EmulatedTenant) async throws {
        let initiate = try await post(
            .initiate, ["username": username, "challenge_type": "oob password redirect"])
        let challenge = try await post(
            .challenge,
            [
                "continuation_token": try field("continuation_token", initiate),
                "challenge_type": "oob password redirect",
            ])
        guard let code = tenant.lastCode(sentTo: username) else { throw BenchmarkFailure.setup("no code sent") }
        let token = try await post(
            .token,
            [
                "continuation_token": try field("continuation_token", challenge), "grant_type": "oob", "oob": code,
                "scope": "openid offline_access profile",
            ])
        _ = try field("access_token", token)
    }

    private func post(_ endpoint: EmulatorEndpoint, _ fields: [String: String]) async throws -> [String: Any] {
        var request = URLRequest(url: server.url(for: endpoint))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
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
