// Performance harness. Run in release mode:
//
//     swift run -c release nativeauth-benchmarks [--tokens N] [--iterations N] [--signatures N]
//                                                 [--rounds N] [--only TEXT] [--no-compare] [--compare-only]
//     swift run -c release nativeauth-benchmarks --server [--clients N] [--seconds S] [--rounds R]
//                                                          [--idle N] [--only-client sdk|hand-rolled]
//
// First the SDK against a hand-rolled client on the same canned answers (Comparison.swift); then
// the latency of a cached `getAccessToken` with N cached tokens (default 1,000: one per
// scope set, as 1,000 stored accounts' worth of tokens), in memory and restored from a file store;
// then RS256 ID token signature verification with a 2048-bit key (default 5,000 verifications).
//
// With --server, measures the emulator's HTTP server instead: N concurrent clients (default 16)
// doing whole email-code sign-ins over loopback HTTP for S seconds (default 10) each, with the SDK
// and with a hand-rolled URLSession client in R alternating rounds (default 4), and the ratio of
// the two; then SDK sign-ins next to N idle connections (default 10,000; 0 skips it), which a
// second process (this one, run with --hold-idle N --port P) holds open. --only-client runs one
// client alone, for a profiler.
//
// With --cold-start, measures an app's launch with a stored session in N fresh processes
// (--runs N, default 21): from the start of main to the cached access token in hand. With
// --key-set, only the worst key set within the SDK's bounds (also part of the full run). With
// --rsa, the portable RSA private key: 2048-bit key generation (N seeds, --runs N), RS256 signing and a
// whole DPoP proof. With --protocols, only the SDK's sign-in over native authentication V2 against
// its sign-in over V1 (ProtocolComparison.swift; also part of the full run). With --algorithms, only
// ID token verification with each algorithm: RS256, PS256, ES256 and EdDSA (also part of the full
// run; --signatures N each).

import Foundation
import NativeAuth
import NativeAuthEmulator

// A cold-start child measures from here, the start of main.
let mainStarted = ContinuousClock.now
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "--cold-start-child" {
    await ColdStart.child(start: mainStarted, arguments: Array(CommandLine.arguments.dropFirst(2)))
}

struct Options {
    var tokens = 1000
    var iterations = 200_000
    var signatures = 5000
    var server = false
    var clients = 16
    var seconds = 10.0
    var rounds = 4
    var idle = 10_000
    var holdIdle: Int?
    var port: UInt16 = 0
    var only: ServerLoad.Kind?
    var coldStart = false
    var keySet = false
    var rsa = false
    var protocols = false
    var algorithms = false
    var runs = 21

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--tokens": tokens = iterator.next().flatMap(Int.init) ?? tokens
            case "--iterations": iterations = iterator.next().flatMap(Int.init) ?? iterations
            case "--signatures": signatures = iterator.next().flatMap(Int.init) ?? signatures
            case "--server": server = true
            case "--cold-start": coldStart = true
            case "--key-set": keySet = true
            case "--rsa": rsa = true
            case "--protocols": protocols = true
            case "--algorithms": algorithms = true
            case "--runs": runs = max(1, iterator.next().flatMap(Int.init) ?? runs)
            case "--clients": clients = max(1, iterator.next().flatMap(Int.init) ?? clients)
            case "--seconds": seconds = max(0.5, iterator.next().flatMap(Double.init) ?? seconds)
            case "--rounds": rounds = max(1, iterator.next().flatMap(Int.init) ?? rounds)
            case "--idle": idle = max(0, iterator.next().flatMap(Int.init) ?? idle)
            case "--hold-idle": holdIdle = iterator.next().flatMap(Int.init)
            case "--port": port = iterator.next().flatMap(UInt16.init) ?? port
            case "--only-client":
                let name = iterator.next()
                only = name == "sdk" ? .sdk : name == "hand-rolled" ? .handRolled : nil
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

// RFC 7515 appendix A.2: an RS256 token and its 2048-bit key.
let rs256Token =
    "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
    + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7"
    + "t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi1"
    + "2jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGl"
    + "UPQGe77Rw"
let rs256KeySet = Array(
    (#"{"keys":[{"kty":"RSA","e":"AQAB","n":""#
        + "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-p"
        + "CgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2Cap"
        + "Hg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h"
        + "4FRWyuXpoQ" + #""}]}"#).utf8)

/// The most work a key set can cause within the SDK's bounds: 64 keys (all it reads) of 8192 bits
/// (the largest modulus) with the exponent 2^256 - 1 (the largest), all under the token's `kid`
/// (4 are tried), and a token whose signature verifies with none. Returns the seconds to parse the
/// set and refuse the token, per round.
func measureWorstKeySet(rounds: Int) throws -> Stats {
    var generator = SystemRandomNumberGenerator()
    func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    let exponent = base64URL([UInt8](repeating: 0xff, count: 32))
    let keys = (0..<64).map { _ -> String in
        var modulus = (0..<1024).map { _ in UInt8.random(in: 0...255, using: &generator) }
        modulus[0] |= 0x80
        modulus[1023] |= 1
        return #"{"kty":"RSA","kid":"k","n":""# + base64URL(modulus) + #"","e":""# + exponent + #""}"#
    }
    let jwks = Array(("{\"keys\":[" + keys.joined(separator: ",") + "]}").utf8)
    var signature = (0..<1024).map { _ in UInt8.random(in: 0...255, using: &generator) }
    signature[0] = 0x01
    let token =
        base64URL(Array(#"{"alg":"RS256","kid":"k"}"#.utf8)) + "." + base64URL(Array(#"{"sub":"x"}"#.utf8)) + "."
        + base64URL(signature)
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = clock.now
        let check = try signatureCheck(token: token, jwks: jwks)
        guard !check() else { throw BenchmarkFailure.setup("a random signature verified") }
        samples.append(nanoseconds(clock.now - start))
    }
    return Stats(samples)
}

/// A check of `token` against `jwks` (a JWK Set document), parsed once: `true` when the signature
/// verifies.
func signatureCheck(token: String, jwks: [UInt8]) throws -> @Sendable () -> Bool {
    let keys = try JSONWebKeySet(json: Data(jwks))
    return { (try? IDTokenSignature.verify(token, keys: keys)) != nil }
}

/// Times `signatures` RS256 verifications of a 2048-bit token with a parsed key set (the same set
/// the check verified with, so its key is usable), and key set parsing.
func measureSignatures(_ signatures: Int) throws -> (verify: Stats, parse: Stats) {
    let check = try signatureCheck(token: rs256Token, jwks: rs256KeySet)
    guard check() else { throw BenchmarkFailure.setup("RS256 token does not verify") }
    let clock = ContinuousClock()
    for _ in 0..<min(signatures, 200) { _ = check() }
    var verify: [Double] = []
    verify.reserveCapacity(signatures)
    for _ in 0..<signatures {
        let start = clock.now
        guard check() else { throw BenchmarkFailure.setup("RS256 verification failed") }
        verify.append(nanoseconds(clock.now - start))
    }
    var parse: [Double] = []
    for _ in 0..<max(1, signatures / 20) {
        let start = clock.now
        _ = try JSONWebKeySet(json: Data(rs256KeySet))
        parse.append(nanoseconds(clock.now - start))
    }
    return (Stats(verify), Stats(parse))
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
if let count = options.holdIdle {
    IdleConnections.hold(count: max(0, count), port: options.port)
}
if options.algorithms {
    do {
        let (verify, _) = try measureSignatures(options.signatures)
        print(verify.line("RS256 ID token verification, 2048-bit key"))
        try SignatureAlgorithms.run(signatures: options.signatures)
        exit(0)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
}
if options.keySet {
    do {
        print(
            try measureWorstKeySet(rounds: 9).line(
                "worst key set within the bounds (64 keys, 8192 bits, e = 2^256 - 1, one kid): parse + refuse one token"
            ))
        exit(0)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
}
if options.rsa {
    do {
        try await RSAKeys.run(keys: options.runs)
        exit(0)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
}
if options.protocols {
    do {
        print(
            ProtocolComparison.table(try await ProtocolComparison.run(rounds: options.rounds), rounds: options.rounds))
        exit(0)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
}
if options.coldStart {
    do {
        try await ColdStart.run(runs: options.runs)
        exit(0)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
}
if options.server {
    do {
        try await ServerLoad.run(
            clients: options.clients, seconds: options.seconds, rounds: options.rounds, idle: options.idle,
            only: options.only)
        exit(0)
    } catch {
        print("benchmark failed: \(error)")
        exit(1)
    }
}
print("swift-native-auth benchmarks: \(options.tokens) cached tokens, \(options.iterations) iterations")
do {
    try await Comparison.runFromCommandLine()
    if CommandLine.arguments.contains("--compare-only") { exit(0) }
    print(ProtocolComparison.table(try await ProtocolComparison.run(rounds: 15), rounds: 15))
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

    let (verify, parse) = try measureSignatures(options.signatures)
    print(verify.line("RS256 ID token verification, 2048-bit key"))
    try SignatureAlgorithms.run(signatures: options.signatures)
    print(parse.line("JWK Set parse, one 2048-bit key"))
    print(
        try measureWorstKeySet(rounds: 9).line(
            "worst key set within the bounds (64 keys, 8192 bits, e = 2^256 - 1, one kid): parse + refuse one token"))
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
