// Performance harness. Run in release mode:
//
//     swift run -c release nativeauth-benchmarks [--tokens N] [--iterations N]
//
// Measures the latency of a cached `getAccessToken` with N cached tokens (default 1,000: one per
// scope set, as 1,000 stored accounts' worth of tokens), in memory and restored from a file store.

import Foundation
import NativeAuth
import NativeAuthEmulator

struct Options {
    var tokens = 1000
    var iterations = 200_000

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--tokens": tokens = iterator.next().flatMap(Int.init) ?? tokens
            case "--iterations": iterations = iterator.next().flatMap(Int.init) ?? iterations
            default: break
            }
        }
    }
}

struct Stats {
    let samples: [Double]  // nanoseconds

    init(_ samples: [Double]) { self.samples = samples.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        return samples[min(samples.count - 1, Int(Double(samples.count - 1) * p))]
    }

    var mean: Double { samples.reduce(0, +) / Double(max(samples.count, 1)) }

    func line(_ name: String) -> String {
        func us(_ ns: Double) -> String { String(format: "%.2f µs", ns / 1000) }
        return "\(name): n=\(samples.count) mean=\(us(mean)) p50=\(us(percentile(0.5))) "
            + "p90=\(us(percentile(0.9))) p99=\(us(percentile(0.99))) max=\(us(samples.last ?? 0))"
    }
}

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

enum BenchmarkFailure: Error { case setup(String) }

func signedInAccount(store: any CredentialStore, tokens: Int) async throws -> (
    NativeAuthClient, UserAccountResult, [[String]]
) {
    let tenant = EmulatedTenant(random: SeededRandomSource(seed: 7))
    tenant.addUser(EmulatedUser(username: "bench@example.com", password: "Bench-Passw0rd!"))
    tenant.configure { $0.revokeRotatedRefreshTokens = false }
    let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
    let client = NativeAuthClient(configuration: configuration, transport: tenant, credentialStore: store)
    guard
        case .completed(let account) = try await client.signIn(
            SignInParameters(username: "bench@example.com", password: "Bench-Passw0rd!"))
    else { throw BenchmarkFailure.setup("sign-in") }
    let scopeSets = (0..<tokens).map { ["api://resource-\($0)/read"] }
    for scopes in scopeSets { _ = try await account.getAccessToken(scopes: scopes) }
    return (client, account, scopeSets)
}

func measure(_ account: UserAccountResult, scopeSets: [[String]], iterations: Int) async throws -> Stats {
    let clock = ContinuousClock()
    var generator = SystemRandomNumberGenerator()
    // Warm up.
    for index in 0..<min(iterations, 1000) {
        _ = try await account.getAccessToken(scopes: scopeSets[index % scopeSets.count])
    }
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let scopes = scopeSets[Int.random(in: 0..<scopeSets.count, using: &generator)]
        let start = clock.now
        _ = try await account.getAccessToken(scopes: scopes)
        samples.append(nanoseconds(clock.now - start))
    }
    return Stats(samples)
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
print("swift-native-auth benchmarks: \(options.tokens) cached tokens, \(options.iterations) iterations")
do {
    let (_, account, scopeSets) = try await signedInAccount(store: InMemoryCredentialStore(), tokens: options.tokens)
    print(
        try await measure(account, scopeSets: scopeSets, iterations: options.iterations).line(
            "cached getAccessToken, in-memory store"))

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "nativeauth-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let fileStore = FileCredentialStore(directory: directory)
    let (client, _, fileScopes) = try await signedInAccount(store: fileStore, tokens: options.tokens)
    // A new client on the same store: restore, then cached reads.
    let clock = ContinuousClock()
    let restoreStart = clock.now
    let restoredClient = NativeAuthClient(
        configuration: client.configuration, transport: URLSessionTransport(), credentialStore: fileStore)
    guard let restored = try await restoredClient.currentAccount() else { throw BenchmarkFailure.setup("restore") }
    _ = try await restored.getAccessToken(scopes: fileScopes[0])
    let restoreTime = nanoseconds(clock.now - restoreStart)
    print(String(format: "restore from file store + first cached token: %.2f ms", restoreTime / 1e6))
    print(
        try await measure(restored, scopeSets: fileScopes, iterations: options.iterations).line(
            "cached getAccessToken, restored from file store"))
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
